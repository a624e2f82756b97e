/**
 * Live delivery in batches: a waiting subscriber is woken once per turn of appends (or when a
 * burst reaches a quarter of its bound), never dropped for a burst it was waiting through, and
 * closing the log hands it what was already queued before ending its iteration. Read in bursts
 * (`batch: true`), a turn's appends arrive as one array.
 */
import { describe, expect, it } from "vitest";

import { SubscriberTooSlowError } from "../../src/errors/index.js";
import { openEventLog } from "../../src/session/event-log.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import type { SessionEvent, SessionNotice, SessionStore } from "../../src/session/types.js";
import { newSessionRecord } from "../../src/testing/session-store-suite.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const note = (n: number): SessionNotice => ({ type: "session.prompt_queued", promptId: `p-${n}`, wake: true });

async function ownedLog(store: SessionStore, bufferSize?: number) {
  const record = newSessionRecord();
  await store.create(record);
  await store.acquireOwner(record.id, "host", 600_000);
  return openEventLog({ store, sessionId: record.id, owner: "host", bufferSize });
}

async function collect(iterable: AsyncIterable<SessionEvent>, limit: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const entry of iterable) {
    seqs.push(entry.seq);
    if (seqs.length >= limit) break;
  }
  return seqs;
}

describe("event log: batched live delivery", () => {
  it("a subscriber waiting through bursts gets every event once, in order, and is not dropped", async () => {
    const log = await ownedLog(memorySessionStore(), 200);
    const total = 3000;
    const got = collect(log.subscribe(), total);
    await tick();
    const appended: number[] = [];
    for (let i = 0; i < total; i++) {
      appended.push(log.append(note(i)).seq);
      // Bursts of 150 per turn: under the bound of 200, but past the wake-up batch of 50.
      if (i % 150 === 149) await tick();
    }
    expect(await got).toEqual(appended);
    await log.close();
  });

  it("a subscriber that stops reading is still dropped once it holds more than its bound", async () => {
    const log = await ownedLog(memorySessionStore(), 40);
    const iterator = log.subscribe()[Symbol.asyncIterator]();
    const first = iterator.next();
    await tick();
    for (let i = 0; i < 100; i++) log.append(note(i));
    expect((await first).value?.seq).toBe(1);
    await tick();
    const drained: number[] = [];
    const error = await (async () => {
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) return undefined;
          drained.push(next.value.seq);
        }
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(SubscriberTooSlowError);
    // Whatever it was handed before the drop is contiguous from the start; the drop names where to resume.
    expect(drained).toEqual(drained.map((_, i) => i + 2));
    expect((error as SubscriberTooSlowError).lastSeq).toBe(1 + drained.length);
    await log.close();
  });

  it("a subscriber reading in bursts gets a turn's appends in arrays of a quarter of its bound, all in order", async () => {
    const log = await ownedLog(memorySessionStore(), 400);
    const sizes: number[] = [];
    const seqs: number[] = [];
    const reading = (async () => {
      for await (const batch of log.subscribe({ batch: true })) {
        sizes.push(batch.length);
        for (const entry of batch) seqs.push(entry.seq);
        if (seqs.length >= 500) return;
      }
    })();
    await tick();
    const appended: number[] = [];
    for (let i = 0; i < 500; i++) {
      appended.push(log.append(note(i)).seq);
      // The reader's continuations run between these appends, as they do between a run's events.
      await Promise.resolve();
      if (i % 250 === 249) await tick();
    }
    await reading;
    expect(seqs).toEqual(appended);
    // Per turn of 250 appends: woken at 100 twice, then the rest at the turn's end — not one array per event.
    expect(sizes).toEqual([100, 100, 50, 100, 100, 50]);
    await log.close();
  });

  it("a subscriber reading in bursts that stops reading is dropped past its bound", async () => {
    const log = await ownedLog(memorySessionStore(), 40);
    const iterator = log.subscribe({ batch: true })[Symbol.asyncIterator]();
    const first = iterator.next();
    await tick();
    for (let i = 0; i < 100; i++) log.append(note(i));
    // Woken at a quarter of its bound with what it had by then; the rest overflows while it does not read.
    expect(((await first).value as readonly SessionEvent[]).map((entry) => entry.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    await tick();
    await expect(iterator.next()).rejects.toBeInstanceOf(SubscriberTooSlowError);
    await log.close();
  });

  it("closing the log hands a waiting subscriber the events already queued, then ends it", async () => {
    const log = await ownedLog(memorySessionStore());
    const got = collect(log.subscribe(), Number.POSITIVE_INFINITY);
    await tick();
    const appended = [1, 2, 3, 4, 5].map((i) => log.append(note(i)).seq);
    await log.close();
    expect(await got).toEqual(appended);
    expect(log.subscriberCount).toBe(0);
  });
});
