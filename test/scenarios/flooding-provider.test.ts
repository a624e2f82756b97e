/**
 * A provider that floods, breaks its frames or leaves mid-turn, through the real drivers over
 * their fake providers: a wrapper relays the provider's stdout and, once the turn is under way,
 * writes valid message deltas far faster than a slow host reads them, writes one 10 MB delta
 * line, writes frames that are JSON but malformed for the protocol, or exits with code 0 or by a
 * signal. Each run ends with exactly one terminal event and no process of the provider's group,
 * and through a flood what the host holds after a collection stays bounded (not a timing bound).
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as turn } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

import { createAgent, isTerminalEvent, type AgentEvent, type Driver } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { groupMembers } from "../chaos/processes.js";
import { fakeClaudeCli, heldMiB, scratch } from "./helpers.js";

type Condition = "delta_flood" | "huge_delta" | "malformed_frames" | "exit_0" | "signal";

const FLOOD_DELTAS = 200_000;
/**
 * Each flood frame carries a field no driver reads: the frames total about 80 MB while the text
 * they stream is 0.6 MB, so a host keeping frames (or a queue of them) shows here, while the run's
 * own text (which result.text and the transcript must hold) stays small.
 */
const FLOOD_PAD_BYTES = 400;
const HUGE_DELTA_BYTES = 10 * 2 ** 20;

const { dir } = scratch("aa-scenario-flood-");
const fake = fakeClaudeCli();
const fixture = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The wrapper: relays the provider's stdout line by line; at the first line containing `trigger`,
 * `frame(line, i, text)` (a JS expression in the wrapper) builds the family's delta frames.
 */
function wrapper(name: string, condition: Condition, command: string, args: string[], trigger: string, frame: string): { path: string; pidFile: string } {
  const folder = dir();
  const path = join(folder, name);
  const pidFile = join(folder, "pid");
  writeFileSync(
    path,
    `#!${process.execPath}
const { spawn } = require("node:child_process");
const { writeFileSync, writeSync } = require("node:fs");
writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
const condition = ${JSON.stringify(condition)};
const child = spawn(${JSON.stringify(command)}, [...${JSON.stringify(args)}, ...process.argv.slice(2)], { stdio: ["inherit", "pipe", "inherit"] });
child.on("exit", (code) => process.exit(code ?? 1));
const out = (data) => { const b = Buffer.from(data); let off = 0; while (off < b.length) { try { off += writeSync(1, b, off); } catch (e) { if (e.code !== "EAGAIN") throw e; } } };
const frame = ${frame};
let fired = false;
let buffered = "";
child.stdout.on("data", (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf("\\n")) >= 0) {
    const line = buffered.slice(0, nl + 1);
    buffered = buffered.slice(nl + 1);
    out(line);
    if (fired || !line.includes(${JSON.stringify(trigger)})) continue;
    fired = true;
    const parsed = JSON.parse(line);
    if (condition === "delta_flood") { const pad = "z".repeat(${FLOOD_PAD_BYTES}); let batch = ""; for (let i = 0; i < ${FLOOD_DELTAS}; i++) { batch += JSON.stringify({ ...frame(parsed, "d" + (i % 10) + " "), pad }) + "\\n"; if (batch.length > 65536) { out(batch); batch = ""; } } out(batch); }
    if (condition === "huge_delta") out(JSON.stringify(frame(parsed, "H".repeat(${HUGE_DELTA_BYTES}))) + "\\n");
    if (condition === "malformed_frames") { for (const bad of [null, 1, [], "s", {}, { method: 42 }, { jsonrpc: "2.0", method: null, params: "x" }, { type: 7 }, { id: {}, result: 1 }, { jsonrpc: "2.0", id: "no-such-request", result: 1 }, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }, { method: "x".repeat(300), params: { deep: JSON.parse("[".repeat(500) + "]".repeat(500)) } }]) out(JSON.stringify(bad) + "\\n"); const broken = frame(parsed, "t"); for (const key of Object.keys(broken)) { const copy = { ...broken }; copy[key] = null; out(JSON.stringify(copy) + "\\n"); } }
    if (condition === "exit_0") { child.kill("SIGKILL"); process.exit(0); }
    if (condition === "signal") { child.kill("SIGKILL"); process.kill(process.pid, "SIGKILL"); }
  }
});
`,
  );
  chmodSync(path, 0o755);
  return { path, pidFile };
}

interface Family {
  name: string;
  trigger: string;
  /** Builds one delta frame of the turn the trigger line belongs to. */
  frame: string;
  driver(condition: Condition): { driver: Driver; pidFile: string; workspace: string };
}

const FAMILIES: Family[] = [
  {
    name: "codex",
    trigger: '"type":"agentMessage"',
    frame: `(started, text) => ({ method: "item/agentMessage/delta", params: { threadId: started.params.threadId, turnId: started.params.turnId, itemId: started.params.item.id, delta: text } })`,
    driver(condition) {
      const { path, pidFile } = wrapper("codex", condition, process.execPath, [fixture("../drivers/codex/fixtures/fake-codex.mjs")], this.trigger, this.frame);
      return { driver: codex({ executable: path, home: dir() }), pidFile, workspace: dir() };
    },
  },
  {
    name: "stream-json (claude)",
    trigger: '"content_block_start"',
    frame: `(started, text) => ({ type: "stream_event", session_id: started.session_id, event: { type: "content_block_delta", index: started.event.index, delta: { type: "text_delta", text } } })`,
    driver(condition) {
      const { path, pidFile } = wrapper("claude", condition, fake.cli.executable, [], this.trigger, this.frame);
      return { driver: claude({ executable: path, configDir: fake.cli.configDir, env: { ANTHROPIC_API_KEY: "sk-fake-flood-key-0123456789" } }), pidFile, workspace: fake.cli.workspace };
    },
  },
  {
    name: "acp",
    trigger: '"agent_message_chunk"',
    frame: `(started, text) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: started.params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } })`,
    driver(condition) {
      const { path, pidFile } = wrapper("fake-acp-agent", condition, process.execPath, [fixture("../drivers/acp/fixtures/fake-agent.mjs")], this.trigger, this.frame);
      return { driver: acp({ command: path }), pidFile, workspace: dir() };
    },
  },
];

interface Outcome {
  events: AgentEvent[];
  error: unknown;
  deltaBytes: number;
  peakHeldMiB: number;
  left: number[];
}

async function drive(family: Family, condition: Condition, slow: boolean): Promise<Outcome> {
  const { driver, pidFile, workspace } = family.driver(condition);
  const agent = createAgent(driver, { workspace });
  const events: AgentEvent[] = [];
  let error: unknown;
  let deltaBytes = 0;
  const before = heldMiB();
  let peak = 0;
  let seen = 0;
  try {
    const stream = agent.stream("say hello");
    for await (const event of stream) {
      // Deltas are counted, not kept: the host here is a renderer, not a recorder.
      if (event.type === "message.delta") deltaBytes += event.text.length;
      else events.push(event);
      if (slow && ++seen % 20_000 === 0) peak = Math.max(peak, heldMiB() - before);
      if (slow) await turn();
    }
    await stream.result;
  } catch (err) {
    error = err;
  } finally {
    await agent.close();
  }
  const pgid = Number(readFileSync(pidFile, "utf8"));
  const deadline = Date.now() + 5000;
  while (groupMembers([pgid]).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return { events, error, deltaBytes, peakHeldMiB: peak, left: groupMembers([pgid]) };
}

const terminalsOf = (events: AgentEvent[]) => events.filter((event) => isTerminalEvent(event));

/** A sink that reports the first emit the buffer did not take at once. */
function watch(sink: Parameters<Driver["run"]>[1], onFull: () => void): Parameters<Driver["run"]>[1] {
  return {
    emit(event) {
      const pending = sink.emit(event);
      if (pending) onFull();
      return pending;
    },
  };
}

describe.each(FAMILIES)("flooding provider: $name", (family) => {
  it(`${FLOOD_DELTAS / 1000}k valid deltas (80 MB of frames) to a slow reader: every delta arrives, what the host holds grows less than 32 MiB`, async () => {
    // Loading and compiling the driver's code costs tens of MiB once per process: not measured.
    await drive(family, "malformed_frames", false);
    const outcome = await drive(family, "delta_flood", true);
    expect(terminalsOf(outcome.events).map((e) => e.type)).toEqual(["run.completed"]);
    expect(outcome.deltaBytes).toBeGreaterThanOrEqual(FLOOD_DELTAS * 3);
    expect(outcome.peakHeldMiB).toBeLessThan(32);
    expect(outcome.left).toEqual([]);
  }, 120_000);

  it("a 10 MB delta line: delivered whole, or reported as a frame too large; the run completes", async () => {
    const outcome = await drive(family, "huge_delta", false);
    expect(terminalsOf(outcome.events).map((e) => e.type)).toEqual(["run.completed"]);
    const reported = outcome.events.some((e) => e.type === "notice" && e.code === "frame_too_large");
    if (!reported) expect(outcome.deltaBytes).toBeGreaterThanOrEqual(HUGE_DELTA_BYTES);
    expect(outcome.left).toEqual([]);
  }, 60_000);

  it("frames that are JSON but malformed for the protocol: no crash, one terminal, few notices", async () => {
    const outcome = await drive(family, "malformed_frames", false);
    expect(terminalsOf(outcome.events)).toHaveLength(1);
    expect(outcome.events.at(-1)?.type).toBe("run.completed");
    expect(outcome.events.length).toBeLessThan(100);
    expect(outcome.left).toEqual([]);
  }, 60_000);

  it("close() awaited inside the reading loop while the flood waits on a full buffer: it settles, one run.cancelled, nothing left", async () => {
    const { driver: inner, pidFile, workspace } = family.driver("delta_flood");
    let markFull!: () => void;
    const full = new Promise<void>((resolve) => (markFull = resolve));
    // The same driver, its sink watched: an emit not taken at once means the buffer is full.
    const run: Driver["run"] = (request, sink, signal) => inner.run(request, watch(sink, markFull), signal);
    const driver = new Proxy(inner, {
      get(target, key) {
        if (key === "run") return run;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const agent = createAgent(driver, { workspace, events: { bufferSize: 64 } });
    const events: AgentEvent[] = [];
    const stream = agent.stream("say hello");
    for await (const event of stream) {
      events.push(event);
      if (event.type === "message.delta" && events.filter((e) => e.type === "message.delta").length === 1) {
        await full;
        await agent.close();
      }
    }
    await expect(stream.result).rejects.toMatchObject({ name: "RunCancelledError" });
    const terminals = terminalsOf(events);
    expect(terminals.map((e) => e.type)).toEqual(["run.cancelled"]);
    expect(events.at(-1)).toBe(terminals[0]);
    const pgid = Number(readFileSync(pidFile, "utf8"));
    const deadline = Date.now() + 5000;
    while (groupMembers([pgid]).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(groupMembers([pgid])).toEqual([]);
  }, 60_000);

  it.each(["exit_0", "signal"] as const)("the provider leaves mid-turn (%s): one run.failed provider_exited, nothing left", async (condition) => {
    const outcome = await drive(family, condition, false);
    const terminals = terminalsOf(outcome.events);
    expect(terminals).toHaveLength(1);
    expect(outcome.events.at(-1)).toBe(terminals[0]);
    expect(terminals[0]).toMatchObject({ type: "run.failed", error: { code: "provider_exited" } });
    expect(outcome.error).toMatchObject({ name: "RunFailedError", code: "provider_exited" });
    expect(outcome.left).toEqual([]);
  }, 60_000);
});
