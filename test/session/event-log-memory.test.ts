/**
 * One million events appended to a session's log on SQLite while a live subscriber follows, then
 * replayed from the start: memory stays bounded (the log keeps only what is not yet stored, a
 * replay only one page). Heap and RSS are measured after a full collection at checkpoints; held
 * in memory, a million events would take several hundred MB.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { openEventLog } from "../../src/session/event-log.js";
import { sqliteSessionStore } from "../../src/session/stores/sqlite.js";
import { newSessionRecord } from "../../src/testing/session-store-suite.js";

const TOTAL = 1_000_000;
const CHUNK = 5_000;
const CHECKPOINT = 250_000;
const FLUSH_EVERY = 50_000;
const MAX_HEAP_GROWTH = 64 * 1024 * 1024;
const MAX_RSS_GROWTH = 256 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), "aa-event-log-1m-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function measure(): { heap: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with --expose-gc");
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

describe("event log memory", () => {
  it(`appends and replays ${TOTAL} events on SQLite with bounded memory`, async () => {
    const store = sqliteSessionStore({ path: join(dir, "million.db") });
    const record = newSessionRecord();
    await store.create(record);
    await store.acquireOwner(record.id, "host", 600_000);
    const log = await openEventLog({ store, sessionId: record.id, owner: "host" });
    const base = measure();
    const peak = { heap: 0, rss: 0 };
    const sample = (): void => {
      const now = measure();
      peak.heap = Math.max(peak.heap, now.heap - base.heap);
      peak.rss = Math.max(peak.rss, now.rss - base.rss);
    };

    // A live follower that checks order and keeps nothing.
    let followed = 0;
    const follower = (async () => {
      for await (const event of log.subscribe()) {
        if (event.seq !== followed + 1) throw new Error(`live gap at ${event.seq}`);
        followed = event.seq;
        if (followed === TOTAL) return;
      }
    })();

    for (let i = 1; i <= TOTAL; i++) {
      log.append({ type: "session.prompt_queued", promptId: `prompt-${i}`, from: "load-test", wake: true });
      if (i % CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      // A producer this fast waits for the store now and then, or the log would hold more than
      // maxUnstored events and stop storing (the store is written off the event loop).
      if (i % FLUSH_EVERY === 0) await log.flush();
      if (i % CHECKPOINT === 0) sample();
    }
    await log.flush();
    await follower;
    expect(followed).toBe(TOTAL);
    expect(await store.lastSeq(record.id)).toBe(TOTAL);
    sample();

    let replayed = 0;
    for await (const event of log.subscribe({ after: 0 })) {
      if (event.seq !== replayed + 1) throw new Error(`replay gap at ${event.seq}`);
      replayed = event.seq;
      if (replayed % CHECKPOINT === 0) sample();
      if (replayed === TOTAL) break;
    }
    expect(replayed).toBe(TOTAL);
    await log.close();
    await store.close();
    console.info(`1M events: peak heap growth ${(peak.heap / 1048576).toFixed(1)} MiB, peak RSS growth ${(peak.rss / 1048576).toFixed(1)} MiB`);
    expect(peak.heap).toBeLessThan(MAX_HEAP_GROWTH);
    expect(peak.rss).toBeLessThan(MAX_RSS_GROWTH);
  }, 300_000);
});
