/**
 * Thread store lease+checkpoint operations per second, SQLite and PostgreSQL, against a bare
 * `INSERT … ON CONFLICT` loop on the same database in the same run.
 *
 *   npm run bench -- store [--cycles 600] [--reps 5] [--warmup 1] [--threads 64]
 *
 * PostgreSQL is measured when AGENT_ADAPTOR_TEST_PG_URL names a server (see
 * scripts/ci-postgres.sh); otherwise its figures are null.
 *
 * Store side (public API only): one *cycle* is what a run does to a thread —
 * `acquireLease` → `saveCheckpoint` → `releaseLease` — over `--threads` threads in turn, one call
 * at a time. Each call is one transaction. Reported as cycles/s and as store calls/s (3 per
 * cycle).
 *
 * Baseline: on the same database file (SQLite: a second connection with the store's pragmas,
 * WAL + synchronous=FULL) or the same server (PostgreSQL: one connection with
 * synchronous_commit=on, as the store's pool), a prepared
 * `INSERT INTO bench (id, turns, owner, at) VALUES (…) ON CONFLICT (id) DO UPDATE SET …` over
 * the same number of keys, one statement (= one transaction) at a time.
 *
 * `call_ratio = store calls/s ÷ upserts/s` (1.0 = a store call costs what one bare durable
 * write costs); `cycle_ratio = cycles/s ÷ upserts/s`. Repetitions alternate store and baseline so
 * drifting load and disk latency hit both alike: within each repetition the two sides take turns
 * in chunks of 20 cycles (60 upserts); medians over repetitions are reported. The last line
 * printed is one JSON object.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import type BetterSqlite3 from "better-sqlite3";

import type { ThreadStore } from "../src/thread/store.js";
import { postgresThreadStore } from "../src/thread/stores/postgres.js";
import { sqliteThreadStore } from "../src/thread/stores/sqlite.js";
import { formatLoad, int, median } from "./stats.js";

interface Options {
  cycles: number;
  reps: number;
  warmup: number;
  threads: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { cycles: 600, reps: 5, warmup: 1, threads: 64 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --cycles, --reps, --warmup, --threads)`);
    const value = Number((inline ?? argv[++i] ?? "").replaceAll("_", ""));
    if (!Number.isInteger(value) || value < (key === "warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
    options[key as keyof Options] = value;
  }
  return options;
}



interface Target {
  name: "sqlite" | "postgres";
  store: ThreadStore;
  /** Runs `count` bare upserts over `keys` keys; `base` numbers them. */
  upserts(count: number, keys: number, base: number): Promise<void>;
  close(): Promise<void>;
}

/** `cycles` lease+checkpoint cycles; `base` numbers them (owners, turns, which thread). */
async function storeCycles(store: ThreadStore, cycles: number, threads: number, base: number): Promise<void> {
  for (let i = base; i < base + cycles; i++) {
    const id = `bench-${i % threads}`;
    const owner = `owner-${i}`;
    const lease = await store.acquireLease(id, owner, 30_000);
    if (lease === undefined) throw new Error("the bench thread was unexpectedly leased");
    await store.saveCheckpoint(id, owner, { checkpoint: { turns: i, lastStatus: "completed", lastRunId: owner } });
    await store.releaseLease(id, owner);
  }
}

async function seed(store: ThreadStore, threads: number): Promise<void> {
  for (let i = 0; i < threads; i++) {
    await store.create({ id: `bench-${i}`, driver: "bench", fingerprint: "fp", fingerprintParts: { driver: "bench" }, workspace: "/w", metadata: {} });
  }
}

async function sqliteTarget(dir: string, threads: number): Promise<Target> {
  const path = join(dir, "threads.db");
  const store = sqliteThreadStore(path);
  await seed(store, threads);
  const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  const db = new Database(path, { timeout: 5000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE IF NOT EXISTS bench (id TEXT PRIMARY KEY NOT NULL, turns INTEGER NOT NULL, owner TEXT, at INTEGER) STRICT");
  const upsert = db.prepare(
    "INSERT INTO bench (id, turns, owner, at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET turns = excluded.turns, owner = excluded.owner, at = excluded.at",
  );
  return {
    name: "sqlite",
    store,
    async upserts(count, keys, base) {
      for (let i = base; i < base + count; i++) upsert.run(`bench-${i % keys}`, i, `owner-${i}`, Date.now());
    },
    async close() {
      db.close();
      await store.close();
    },
  };
}

async function postgresTarget(url: string, threads: number): Promise<Target> {
  const schema = `aa_bench_${process.pid}_${Date.now().toString(36)}`;
  const store = await postgresThreadStore({ connectionString: url, schema });
  await seed(store, threads);
  const pg = (await import("pg")).default;
  const pool = new pg.Pool({ connectionString: url, max: 1, options: "-c synchronous_commit=on" });
  await pool.query(`CREATE TABLE "${schema}".bench (id text PRIMARY KEY, turns integer NOT NULL, owner text, at bigint)`);
  const sql = `INSERT INTO "${schema}".bench (id, turns, owner, at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (id) DO UPDATE SET turns = excluded.turns, owner = excluded.owner, at = excluded.at`;
  return {
    name: "postgres",
    store,
    async upserts(count, keys, base) {
      // A named statement, prepared once per connection, as the store's own statements are.
      for (let i = base; i < base + count; i++) {
        await pool.query({ name: "bench-upsert", text: sql, values: [`bench-${i % keys}`, i, `owner-${i}`, Date.now()] });
      }
    },
    async close() {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await pool.end();
      await store.close();
    },
  };
}

interface Figures {
  cycles_per_s: number;
  calls_per_s: number;
  upserts_per_s: number;
  call_ratio: number;
  cycle_ratio: number;
  cycle_ms_range: [number, number];
}

/** Store and baseline alternate in chunks this many cycles long, so disk and load noise hit both. */
const CHUNK_CYCLES = 20;

async function measure(target: Target, options: Options): Promise<Figures> {
  const { cycles, reps, warmup, threads } = options;
  const storeMs: number[] = [];
  const upsertMs: number[] = [];
  for (let rep = 0; rep < warmup + reps; rep++) {
    let storeTotal = 0;
    let upsertTotal = 0;
    for (let done = 0; done < cycles; done += CHUNK_CYCLES) {
      const n = Math.min(CHUNK_CYCLES, cycles - done);
      const round = rep * cycles + done;
      let start = performance.now();
      await storeCycles(target.store, n, threads, round);
      storeTotal += performance.now() - start;
      start = performance.now();
      await target.upserts(n * 3, threads, round); // as many statements as the store side made calls
      upsertTotal += performance.now() - start;
    }
    if (rep >= warmup) {
      storeMs.push(storeTotal);
      upsertMs.push(upsertTotal);
    }
  }
  const cyclesPerS = (cycles / median(storeMs)) * 1000;
  const upsertsPerS = ((cycles * 3) / median(upsertMs)) * 1000;
  return {
    cycles_per_s: Math.round(cyclesPerS),
    calls_per_s: Math.round(cyclesPerS * 3),
    upserts_per_s: Math.round(upsertsPerS),
    call_ratio: Number(((cyclesPerS * 3) / upsertsPerS).toFixed(3)),
    cycle_ratio: Number((cyclesPerS / upsertsPerS).toFixed(3)),
    cycle_ms_range: [Number((Math.min(...storeMs) / cycles).toFixed(3)), Number((Math.max(...storeMs) / cycles).toFixed(3))],
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const pgUrl = process.env.AGENT_ADAPTOR_TEST_PG_URL || undefined;
  const loadBefore = loadavg();
  console.log(
    `store: ${int(options.cycles)} lease+checkpoint cycles (acquire → checkpoint → release) over ${options.threads} threads, ` +
      `${options.warmup} warm-up + ${options.reps} repetitions, store and baseline alternating every ${CHUNK_CYCLES} cycles, node ${process.version}, ` +
      `${availableParallelism()} CPUs, load average ${formatLoad(loadBefore)} (1/5/15 min)`,
  );
  const dir = mkdtempSync(join(tmpdir(), "aa-bench-store-"));
  const results: Record<string, Figures | null> = { sqlite: null, postgres: null };
  try {
    const sqlite = await sqliteTarget(dir, options.threads);
    try {
      results.sqlite = await measure(sqlite, options);
    } finally {
      await sqlite.close();
    }
    if (pgUrl === undefined) {
      console.log("postgres: skipped (AGENT_ADAPTOR_TEST_PG_URL is not set; see scripts/ci-postgres.sh)");
    } else {
      const postgres = await postgresTarget(pgUrl, options.threads);
      try {
        results.postgres = await measure(postgres, options);
      } finally {
        await postgres.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg();

  const header = ["", "cycles/s", "store calls/s", "bare upserts/s", "calls ÷ upserts", "cycles ÷ upserts"];
  const table = Object.entries(results).map(([name, f]) =>
    f === null
      ? [name, "–", "–", "–", "–", "–"]
      : [name, int(f.cycles_per_s), int(f.calls_per_s), int(f.upserts_per_s), f.call_ratio.toFixed(3), f.cycle_ratio.toFixed(3)],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log();
  console.log(format(header));
  console.log(widths.map((w) => "─".repeat(w)).join("  "));
  for (const row of table) console.log(format(row));
  console.log();
  console.log(`load average at the end ${formatLoad(loadAfter)} (1/5/15 min)`);
  console.log(
    JSON.stringify({
      bench: "store",
      cycles: options.cycles,
      threads: options.threads,
      reps: options.reps,
      sqlite: results.sqlite,
      postgres: results.postgres,
      node: process.version,
      cpus: availableParallelism(),
      loadavg_start: loadBefore.map((v) => Number(v.toFixed(2))),
      loadavg_end: loadAfter.map((v) => Number(v.toFixed(2))),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
