/**
 * Leases and checkpoints across real OS processes. The store sources and the worker
 * (fixtures/worker.ts) are transpiled with TypeScript's transpileModule into node_modules/.cache
 * and run with plain `node`, so each worker is an independent process with its own connection.
 *
 * - Lease race: a victim process takes the lease and is killed with SIGKILL; then N racers start
 *   at once and each must become the writer a few times. Every racer appends busy/start/stop
 *   lines (CLOCK_MONOTONIC timestamps) to one log file; the writer intervals must not overlap,
 *   the first takeover must come after the victim's lease expired, and the read-modify-write
 *   checkpoint counter must have lost no increment.
 * - Crash: a writer saves checkpoints in a loop and reports each acknowledged one; it is killed
 *   with SIGKILL midway; the SQLite database must pass integrity_check and hold every
 *   acknowledged checkpoint.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ThreadStore } from "../../src/thread/store.js";
import { postgresThreadStore } from "../../src/thread/stores/postgres.js";
import { SQLITE_THREAD_SCHEMA_VERSION, sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { buildWorker, dropSchemas, PG_MISSING, PG_REQUIRED, PG_URL, startWorker, uniqueSchema, type Child } from "./helpers.js";

const RACERS = 8;
const WRITES_EACH = 2;
const CHECKPOINTS_PER_WRITE = 3;
const RACER_TTL_MS = 15_000;
const VICTIM_TTL_MS = 3_000;

const dir = mkdtempSync(join(tmpdir(), "aa-thread-mp-"));
const schemas = new Set<string>();
const children: Child[] = [];
let worker: string;
let build: string | undefined;

beforeAll(async () => {
  ({ worker, dir: build } = await buildWorker());
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  if (build !== undefined) rmSync(build, { recursive: true, force: true });
  if (PG_URL !== undefined) await dropSchemas(PG_URL, schemas);
});

const start = (config: Record<string, unknown>): Child => {
  const child = startWorker(worker, config);
  children.push(child);
  return child;
};

interface LogLine {
  owner: string;
  pid: number;
  t: string;
  event: "busy" | "start" | "stop";
  expiresAt?: number;
}

async function leaseRace(kind: "sqlite" | "postgres", open: () => Promise<ThreadStore>, target: Record<string, unknown>): Promise<void> {
  const id = `race-${kind}`;
  const log = join(dir, `${kind}.log`);
  const go = join(dir, `${kind}.go`);
  writeFileSync(log, "");
  const store = await open();
  try {
    await store.create({ id, driver: "fake", fingerprint: "fp", fingerprintParts: {}, workspace: "/w", metadata: {} });

    const racers = Array.from({ length: RACERS }, (_, i) =>
      start({
        ...target,
        mode: "race",
        id,
        owner: `racer-${i}`,
        ttlMs: RACER_TTL_MS,
        log,
        go,
        writes: WRITES_EACH,
        checkpointsPerWrite: CHECKPOINTS_PER_WRITE,
        holdMs: 30,
      }),
    );
    await Promise.all(racers.map((r) => r.line((l) => l === "ready", 60_000)));

    // A writer that takes the lease and dies without releasing it.
    const victim = start({ ...target, mode: "victim", id, owner: "victim", ttlMs: VICTIM_TTL_MS, log });
    const { lease: victimLease } = JSON.parse(await victim.line((l) => l.startsWith("{"), 60_000)) as {
      lease: { owner: string; expiresAt: number };
    };
    victim.proc.kill("SIGKILL");
    expect((await victim.exited).signal).toBe("SIGKILL");
    expect((await store.get(id))?.lease?.owner, "the dead writer's lease is still held until it expires").toBe("victim");

    writeFileSync(go, "");
    const results = await Promise.all(
      racers.map(async (r) => {
        const exit = await r.exited;
        expect(exit.code, `racer exit\n${r.stderr()}`).toBe(0);
        const last = r.lines.at(-1)!;
        return JSON.parse(last) as { busy: number; written: number };
      }),
    );

    const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as LogLine);
    // Writer intervals from the external log, in order of their start.
    const open_ = new Map<string, LogLine>();
    const intervals: { owner: string; from: bigint; to: bigint; expiresAt: number }[] = [];
    for (const line of lines) {
      if (line.owner === "victim") continue;
      if (line.event === "start") {
        expect(open_.has(line.owner), "a racer never starts twice without stopping").toBe(false);
        open_.set(line.owner, line);
      } else if (line.event === "stop") {
        const began = open_.get(line.owner)!;
        open_.delete(line.owner);
        intervals.push({ owner: line.owner, from: BigInt(began.t), to: BigInt(line.t), expiresAt: began.expiresAt! });
      }
    }
    expect(open_.size, "every start has its stop").toBe(0);
    intervals.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
    expect(intervals).toHaveLength(RACERS * WRITES_EACH);
    for (let i = 1; i < intervals.length; i++) {
      const prev = intervals[i - 1]!;
      const next = intervals[i]!;
      expect(next.from > prev.to, `${next.owner} started writing while ${prev.owner} still was`).toBe(true);
    }

    // The killed writer's lease was taken over only once it had expired on the store's clock:
    // the first racer's lease began (expiresAt - ttl) no earlier than the victim's expired.
    const victimStart = BigInt(lines.find((l) => l.owner === "victim" && l.event === "start")!.t);
    expect(intervals[0]!.from > victimStart).toBe(true);
    expect(intervals[0]!.expiresAt - RACER_TTL_MS).toBeGreaterThanOrEqual(victimLease.expiresAt);

    // The others were refused (thread busy) and retried until it was their turn.
    const busy = lines.filter((l) => l.event === "busy").length;
    expect(busy).toBe(results.reduce((n, r) => n + r.busy, 0));
    expect(busy).toBeGreaterThan(0);
    for (const r of results) expect(r.written).toBe(WRITES_EACH);

    // No increment was lost: each write read the counter under its lease and added to it.
    const final = await store.get(id);
    expect(final?.checkpoint.turns).toBe(RACERS * WRITES_EACH * CHECKPOINTS_PER_WRITE);
    expect(final?.lease, "every racer released its lease").toBeUndefined();
    console.log(
      `${kind} lease race: ${RACERS} processes, ${intervals.length} writer intervals, ${busy} busy answers, ` +
        `victim lease taken over ${intervals[0]!.expiresAt - RACER_TTL_MS - victimLease.expiresAt} ms after it expired`,
    );
  } finally {
    await store.close();
  }
}

describe("multi-process leases", () => {
  it(`SQLite: ${RACERS} processes, one writer at a time, a killed writer's lease taken over after expiry`, async () => {
    const path = join(dir, "race.db");
    await leaseRace("sqlite", async () => sqliteThreadStore(path), { store: "sqlite", path });
  }, 120_000);

  if (PG_URL !== undefined) {
    const url = PG_URL;
    it(`PostgreSQL: ${RACERS} processes, one writer at a time, a killed writer's lease taken over after expiry`, async () => {
      const schema = uniqueSchema("aa_mp");
      schemas.add(schema);
      await leaseRace("postgres", () => postgresThreadStore({ connectionString: url, schema }), { store: "postgres", url, schema });
    }, 120_000);
  } else if (PG_REQUIRED) {
    it("PostgreSQL multi-process leases: a PostgreSQL server is required in CI", () => {
      throw new Error(PG_MISSING);
    });
  } else {
    console.warn(`skipping the PostgreSQL multi-process lease test: ${PG_MISSING}`);
    it.skip(`PostgreSQL multi-process leases (${PG_MISSING})`, () => undefined);
  }
});

describe("multi-process migrations", () => {
  it(`${RACERS} processes opening a new SQLite file at once migrate it once`, async () => {
    const path = join(dir, "fresh.db");
    const go = join(dir, "fresh.go");
    const openers = Array.from({ length: RACERS }, (_, i) => start({ store: "sqlite", path, mode: "open", owner: `opener-${i}`, go, id: "-", ttlMs: 1 }));
    await Promise.all(openers.map((o) => o.line((l) => l === "ready", 60_000)));
    writeFileSync(go, "");
    for (const opener of openers) {
      const exit = await opener.exited;
      expect(exit.code, opener.stderr()).toBe(0);
      expect(opener.lines).toEqual(["ready", `opened ${SQLITE_THREAD_SCHEMA_VERSION}`]);
    }
    const store = sqliteThreadStore(path);
    try {
      expect((await store.list()).map((r) => r.id).sort()).toEqual(Array.from({ length: RACERS }, (_, i) => `opener-${i}`).sort());
    } finally {
      await store.close();
    }
  }, 120_000);
});

describe("crash safety", () => {
  it("kill -9 while writing checkpoints leaves the SQLite database sound with every acknowledged checkpoint", async () => {
    const path = join(dir, "crash.db");
    const setup = sqliteThreadStore(path);
    await setup.create({ id: "crash", driver: "fake", fingerprint: "fp", fingerprintParts: {}, workspace: "/w", metadata: {} });
    await setup.close();

    const writer = start({ store: "sqlite", path, mode: "crash", id: "crash", owner: "writer", ttlMs: 600_000 });
    await writer.line((l) => l === "ready", 60_000);
    // Let it acknowledge a good number of checkpoints, then kill it wherever it is.
    await writer.line((l) => l === "ack 150", 60_000);
    await new Promise((resolve) => setTimeout(resolve, 3 + Math.random() * 20));
    writer.proc.kill("SIGKILL");
    expect((await writer.exited).signal).toBe("SIGKILL");
    const acked = writer.lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.slice(4)));
    const last = acked.at(-1)!;
    expect(acked).toEqual(Array.from({ length: last }, (_, i) => i + 1));

    const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
    const db = new Database(path);
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }

    const store = sqliteThreadStore(path);
    try {
      const main = await store.get("crash");
      expect(main?.checkpoint.turns).toBeGreaterThanOrEqual(last);
      const missing: number[] = [];
      for (const n of acked) {
        const record = await store.get(`crash-${n}`);
        if (record?.checkpoint.turns !== n || record.providerSessionId !== `session-${n}`) missing.push(n);
      }
      expect(missing, "acknowledged checkpoints missing after the crash").toEqual([]);
      console.log(`crash test: killed after ${last} acknowledged checkpoints; the main thread is at ${main?.checkpoint.turns}`);
    } finally {
      await store.close();
    }
  }, 120_000);
});
