/**
 * The attach server under load (issue #20): many sessions on the fake driver, each watched by
 * several SSE viewers over real HTTP on 127.0.0.1, prompts submitted for a fixed time.
 *
 *   node scripts/bench.mjs serve-load [--seconds 60] [--sessions 50] [--viewers 10] [--deltas 20] [--pause 200]
 *
 * Every option also reads an environment variable (SERVE_LOAD_SECONDS, _SESSIONS, _VIEWERS,
 * _DELTAS, _PAUSE); a flag wins. SERVE_LOAD_NODE_ARGS adds Node flags to the server process. The server runs in a child process (bench/serve-load/server.ts)
 * with a SQLite store in a temporary state directory, so its memory is sampled apart from the
 * viewers'. Each session runs a prompt of `--deltas` message deltas, waits `--pause` ms after the
 * run's end and submits the next, until `--seconds` have passed.
 *
 * Checked: every viewer receives every seq 1..lastSeq of its session exactly once and in order
 * (a viewer whose stream ends early resumes with Last-Event-ID, counted as a reconnect).
 * Reported: events logged and frames delivered per second; delivery latency p50/p95/p99 from the
 * event's `at` (stamped by the run as it is published, just before the session logs it) to the
 * viewer having parsed its frame — both clocks are this machine's, at millisecond resolution;
 * the server's RSS and heap at the start of the load, their peak, and at the end. The last line
 * printed is one JSON object with the figures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

import { formatLoad, int } from "./stats.js";

interface Options {
  seconds: number;
  sessions: number;
  viewers: number;
  deltas: number;
  pause: number;
}

const ENV: Record<keyof Options, string> = {
  seconds: "SERVE_LOAD_SECONDS",
  sessions: "SERVE_LOAD_SESSIONS",
  viewers: "SERVE_LOAD_VIEWERS",
  deltas: "SERVE_LOAD_DELTAS",
  pause: "SERVE_LOAD_PAUSE",
};

function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Options {
  const options: Options = { seconds: 60, sessions: 50, viewers: 10, deltas: 20, pause: 200 };
  const set = (key: keyof Options, raw: string, what: string): void => {
    const value = Number(raw.replaceAll("_", ""));
    if (!Number.isInteger(value) || value < (key === "pause" ? 0 : 1)) throw new Error(`${what} needs a ${key === "pause" ? "non-negative" : "positive"} integer`);
    options[key] = value;
  };
  for (const key of Object.keys(ENV) as (keyof Options)[]) {
    const raw = env[ENV[key]];
    if (raw !== undefined && raw !== "") set(key, raw, ENV[key]);
  }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --seconds, --sessions, --viewers, --deltas, --pause)`);
    set(key as keyof Options, inline ?? argv[++i] ?? "", flag);
  }
  return options;
}

/* ---------------- the server child ---------------- */

interface MemorySample {
  at: number;
  rss: number;
  heapUsed: number;
  /** Taken right after a full collection (every tenth sample): the live heap. */
  collected: boolean;
}

interface ServerChild {
  url: string;
  samples: MemorySample[];
  stop(): Promise<void>;
}

async function startServer(stateDir: string, configPath: string, token: string): Promise<ServerChild> {
  const script = fileURLToPath(new URL("./serve-load/server.js", import.meta.url));
  // SERVE_LOAD_NODE_ARGS: more Node flags for the server (e.g. `--cpu-prof --cpu-prof-dir=...` to profile it).
  const nodeArgs = (process.env.SERVE_LOAD_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
  const child: ChildProcess = spawn(process.execPath, ["--expose-gc", ...nodeArgs, script, configPath, stateDir], {
    env: { ...process.env, SERVE_LOAD_TOKEN: token },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const samples: MemorySample[] = [];
  let closed = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).on("line", (text) => {
      const message = JSON.parse(text) as { url?: string; closed?: boolean } & Partial<MemorySample>;
      if (message.url !== undefined) resolve(message.url);
      else if (message.closed) closed = true;
      else samples.push(message as MemorySample);
    });
  });
  return {
    url,
    samples,
    async stop() {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(killer);
      if (!closed) throw new Error("the server did not close cleanly");
    },
  };
}

/* ---------------- viewers ---------------- */

/** Delivery latencies in whole milliseconds: counts per value. */
class Histogram {
  private counts: number[] = [];
  total = 0;
  add(ms: number): void {
    const bucket = Math.max(0, Math.round(ms));
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.total++;
  }
  percentile(p: number): number {
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let ms = 0; ms < this.counts.length; ms++) {
      seen += this.counts[ms] ?? 0;
      if (seen >= rank) return ms;
    }
    return Number.NaN;
  }
  max(): number {
    return this.counts.length - 1;
  }
}

interface Viewer {
  /** Newest seq received. */
  last: number;
  frames: number;
  reconnects: number;
  /** Seqs received out of order, twice, or after a gap (first few). */
  faults: string[];
  done: Promise<void>;
}

interface Client {
  base: string;
  headers: Record<string, string>;
}

async function api<T>(client: Client, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${client.base}${path}`, {
    method,
    headers: { ...client.headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

const TERMINAL = new Set(["run.completed", "run.failed", "run.cancelled"]);

/**
 * One SSE viewer of a session from seq 1: reads frames until `signal` aborts, resuming with
 * Last-Event-ID when a stream ends early. `onTerminal` hears each run's end.
 */
function watch(client: Client, id: string, latency: Histogram, signal: AbortSignal, onTerminal?: () => void): Viewer {
  const viewer: Viewer = { last: 0, frames: 0, reconnects: 0, faults: [], done: Promise.resolve() };
  const frame = (text: string): void => {
    let seq = Number.NaN;
    let data: string | undefined;
    for (const line of text.split("\n")) {
      if (line.startsWith("id: ")) seq = Number(line.slice(4));
      else if (line.startsWith("data: ")) data = line.slice(6);
    }
    if (data === undefined || Number.isNaN(seq)) return; // a heartbeat comment
    const event = JSON.parse(data) as { type: string; at?: unknown };
    const now = Date.now();
    if (seq !== viewer.last + 1 && viewer.faults.length < 5) viewer.faults.push(`got ${seq} after ${viewer.last}`);
    if (seq > viewer.last) viewer.last = seq;
    viewer.frames++;
    // Session notices carry no `at`; run events do.
    if (typeof event.at === "number") latency.add(now - event.at);
    if (onTerminal !== undefined && TERMINAL.has(event.type)) onTerminal();
  };
  const connect = async (): Promise<void> => {
    const headers = { ...client.headers, ...(viewer.last > 0 ? { "last-event-id": String(viewer.last) } : {}) };
    const response = await fetch(`${client.base}/api/sessions/${encodeURIComponent(id)}/events`, { headers, signal });
    if (!response.ok || response.body === null) throw new Error(`events of ${id}: ${response.status}`);
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = pending.indexOf("\n\n")) >= 0) {
        frame(pending.slice(0, end));
        pending = pending.slice(end + 2);
      }
    }
  };
  viewer.done = (async () => {
    for (;;) {
      try {
        await connect();
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      if (signal.aborted) return;
      viewer.reconnects++;
    }
  })();
  return viewer;
}

/* ---------------- the run ---------------- */

function agentConfig(workspace: string, deltas: number): unknown {
  return {
    agents: {
      load: {
        driver: "fake",
        workspace,
        options: { script: { steps: [{ deltas: { count: deltas, itemId: "m1", text: "tok " } }] } },
      },
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// long-function: one benchmark run from setup to figures, in the order it happens
async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2), process.env);
  const dir = mkdtempSync(join(tmpdir(), "aa-bench-serve-load-"));
  const stateDir = join(dir, "state");
  const workspace = join(dir, "workspace");
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(agentConfig(workspace, options.deltas)));
  mkdirSync(workspace);
  const token = randomBytes(24).toString("hex");
  const loadBefore = loadavg();
  console.log(
    `serve-load: ${options.sessions} sessions × ${options.viewers} SSE viewers, ${options.seconds} s, ${options.deltas} deltas per prompt, ` +
      `${options.pause} ms between a session's runs; ${availableParallelism()} CPUs, load average ${formatLoad(loadBefore)} (1/5/15 min)`,
  );
  const server = await startServer(stateDir, configPath, token);
  const client: Client = { base: server.url, headers: { authorization: `Bearer ${token}` } };
  const stopViewers = new AbortController();
  const latency = new Histogram();
  try {
    const ids: string[] = [];
    for (let i = 0; i < options.sessions; i++) {
      const view = await api<{ id: string }>(client, "POST", "/api/sessions", { agent: "load", idleSleepMs: 600_000 });
      ids.push(view.id);
    }
    // Per session: a signal for the end of each run, heard by its first viewer.
    const runEnded = ids.map(() => ({ count: 0, wake: undefined as (() => void) | undefined }));
    const viewers = ids.map((id, s) =>
      Array.from({ length: options.viewers }, (_, v) =>
        watch(client, id, latency, stopViewers.signal, v === 0 ? () => {
          const ended = runEnded[s]!;
          ended.count++;
          ended.wake?.();
        } : undefined),
      ),
    );
    const all = viewers.flat();
    await sleep(500);
    const startSample = server.samples.length;
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    let prompts = 0;
    const loops = ids.map(async (id, s) => {
      const ended = runEnded[s]!;
      while (Date.now() < deadline) {
        const before = ended.count;
        await api(client, "POST", `/api/sessions/${encodeURIComponent(id)}/submit`, { text: "load" });
        prompts++;
        // Its first viewer hears the run end (a stuck run fails the benchmark rather than hanging it).
        await new Promise<void>((resolve, reject) => {
          if (ended.count > before) return resolve();
          const stuck = setTimeout(() => reject(new Error(`session ${id}: no run end within 60 s of a prompt`)), 60_000);
          ended.wake = () => {
            clearTimeout(stuck);
            resolve();
          };
        });
        ended.wake = undefined;
        if (options.pause > 0) await sleep(options.pause);
      }
    });
    await Promise.all(loops);
    const loadMs = Date.now() - started;
    const lastSeqs = await Promise.all(ids.map(async (id) => (await api<{ lastSeq: number }>(client, "GET", `/api/sessions/${encodeURIComponent(id)}`)).lastSeq));
    await waitFor(() => viewers.every((group, s) => group.every((viewer) => viewer.last >= lastSeqs[s]!)), 120_000, "every viewer to reach its session's last seq");
    const drainedMs = Date.now() - started;
    await sleep(1000);
    stopViewers.abort();
    await Promise.all(all.map((viewer) => viewer.done));

    // Exactly once, in order: no fault recorded and as many frames as seqs.
    const bad = viewers.flatMap((group, s) =>
      group.filter((viewer) => viewer.faults.length > 0 || viewer.frames !== lastSeqs[s] || viewer.last !== lastSeqs[s]).map((viewer) => ({ session: s, lastSeq: lastSeqs[s], ...viewer, done: undefined })),
    );
    const logged = lastSeqs.reduce((sum, seq) => sum + seq, 0);
    const frames = all.reduce((sum, viewer) => sum + viewer.frames, 0);
    const reconnects = all.reduce((sum, viewer) => sum + viewer.reconnects, 0);

    // From the last sample before the load began.
    const during = server.samples.slice(Math.max(0, startSample - 1));
    const first = during[0]!;
    const peak = (key: "rss" | "heapUsed", from: MemorySample[]): number => Math.max(...from.map((sample) => sample[key]));
    const half = started + (loadMs / 2);
    const firstHalf = during.filter((sample) => sample.at < half);
    const secondHalf = during.filter((sample) => sample.at >= half && sample.at <= started + loadMs);
    const last = server.samples[server.samples.length - 1]!;
    // The live heap (after a full collection) along the run: retention shows as a rising line.
    const live = during.filter((sample) => sample.collected && sample.at <= started + drainedMs).map((sample) => ({ s: Math.round((sample.at - started) / 1000), mib: +mib(sample.heapUsed) }));
    const loadAfter = loadavg();

    console.log(`prompts: ${int(prompts)}; events logged: ${int(logged)} (${int(logged / (loadMs / 1000))}/s); frames delivered: ${int(frames)} (${int(frames / (drainedMs / 1000))}/s)`);
    console.log(`every viewer saw 1..lastSeq once, in order: ${bad.length === 0 ? "yes" : `NO (${bad.length} of ${all.length} viewers)`}; reconnects: ${reconnects}`);
    console.log(`delivery latency (event at → viewer parsed): p50 ${latency.percentile(50)} ms, p95 ${latency.percentile(95)} ms, p99 ${latency.percentile(99)} ms, max ${latency.max()} ms (${int(latency.total)} frames)`);
    console.log(
      `server RSS MiB: start ${mib(first.rss)}, peak ${mib(peak("rss", during))} (1st half ${mib(peak("rss", firstHalf))}, 2nd half ${mib(peak("rss", secondHalf))}), end ${mib(last.rss)}`,
    );
    console.log(
      `server heap MiB: start ${mib(first.heapUsed)}, peak ${mib(peak("heapUsed", during))} (1st half ${mib(peak("heapUsed", firstHalf))}, 2nd half ${mib(peak("heapUsed", secondHalf))}), end ${mib(last.heapUsed)}`,
    );
    console.log(`server live heap MiB after a full GC, by second of the run: ${live.map((point) => `${point.s}s ${point.mib}`).join(", ")}`);
    console.log(`load average after: ${formatLoad(loadAfter)}`);
    if (bad.length > 0) console.log(`faults: ${JSON.stringify(bad.slice(0, 5))}`);
    console.log(
      JSON.stringify({
        ...options,
        prompts,
        logged,
        frames,
        reconnects,
        exactlyOnce: bad.length === 0,
        latencyMs: { p50: latency.percentile(50), p95: latency.percentile(95), p99: latency.percentile(99), max: latency.max() },
        rssMiB: { start: +mib(first.rss), peak: +mib(peak("rss", during)), firstHalfPeak: +mib(peak("rss", firstHalf)), secondHalfPeak: +mib(peak("rss", secondHalf)), end: +mib(last.rss) },
        liveHeapMiB: live,
        heapMiB: { start: +mib(first.heapUsed), peak: +mib(peak("heapUsed", during)), firstHalfPeak: +mib(peak("heapUsed", firstHalf)), secondHalfPeak: +mib(peak("heapUsed", secondHalf)), end: +mib(last.heapUsed) },
        loadBefore,
        loadAfter,
      }),
    );
    if (bad.length > 0) process.exitCode = 1;
  } finally {
    stopViewers.abort();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
