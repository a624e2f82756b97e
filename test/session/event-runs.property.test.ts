/**
 * The compact stored form of runs of deltas is lossless: random event sequences — runs of deltas
 * broken by a changed field, a seq gap, an extra key, a nested object or another kind of event —
 * decode back into exactly the events encoded; through an event log on SQLite they replay, from
 * any `after`, equal to what was appended and what live subscribers saw; rows in the older form
 * still read; a retention trim that cuts through a run keeps exactly the newest events.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

import type { AgentEvent } from "../../src/events/types.js";
import { openEventLog } from "../../src/session/event-log.js";
import { BatchEncoder, decodeBody, encodeBatch } from "../../src/session/event-runs.js";
import { sqliteSessionStore } from "../../src/session/stores/sqlite.js";
import type { SessionEvent, SessionStore } from "../../src/session/types.js";
import { newSessionRecord } from "../../src/testing/session-store-suite.js";

const dir = mkdtempSync(join(tmpdir(), "aa-event-runs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Loose = Record<string, unknown>;

/** How one event differs from the one before it (most often: only its text, seq and at). */
const change = fc.oneof(
  { weight: 30, arbitrary: fc.constant("none" as const) },
  fc.constantFrom("type", "itemId", "runId", "seqGap", "provenance", "dropProvenance", "extraKey", "nested", "notice", "threadId", "textNumber", "keyOrder"),
  // Often enough that a run has the key and then changes it.
  { weight: 2, arbitrary: fc.constant("otherKey" as const) },
);

const step = fc.record({
  change,
  text: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("", "x", "é\u2028\"\\", "\ud83d\ude00")),
  atStep: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.integer({ min: -3, max: 5 })),
  eventAtStep: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.integer({ min: -2, max: 40 })),
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** Builds the events of `steps` (each a fresh object, as a driver emits them) and their session `at`s. */
function build(steps: Step[]): { at: number; event: AgentEvent }[] {
  let state: Loose = { type: "message.delta", seq: 1, runId: "run-a", at: 1_700_000_000_000, itemId: "m1" };
  let provenance: Loose | undefined = { provider: "codex", event: "item/agentMessage/delta", itemId: "m1" };
  let at = 1_700_000_000_000;
  const out: { at: number; event: AgentEvent }[] = [];
  for (const s of steps) {
    at += s.atStep;
    const seq = (state.seq as number) + (s.change === "seqGap" ? 2 : 1);
    state = { ...state, seq, at: (state.at as number) + s.eventAtStep };
    if (s.change === "type") state.type = state.type === "message.delta" ? "reasoning.delta" : "message.delta";
    if (s.change === "itemId") state.itemId = `${state.itemId as string}'`;
    if (s.change === "runId") state.runId = `${state.runId as string}'`;
    if (s.change === "threadId") state.threadId = state.threadId === undefined ? "t1" : undefined;
    if (s.change === "provenance") provenance = { provider: "codex", event: `e${seq % 3}`, itemId: state.itemId };
    if (s.change === "dropProvenance") provenance = provenance === undefined ? { provider: "pi" } : undefined;
    // A key no driver event has, kept by the events after it: runs compare it too.
    if (s.change === "otherKey") state.note = state.note === undefined ? "n" : `${state.note as string}'`;
    let event: Loose;
    if (s.change === "notice") event = { type: "session.prompt_queued", promptId: `p${seq}`, wake: seq % 2 === 0 };
    else {
      event = { ...state, text: s.change === "textNumber" ? seq : s.text };
      if (provenance !== undefined) event.provenance = { ...provenance };
      if (s.change === "extraKey") event.extra = seq;
      if (s.change === "nested") event.provenance = { provider: "codex", detail: { n: seq } };
      // The same keys and values in another order serialize differently.
      if (s.change === "keyOrder") event = { text: event.text, ...event };
    }
    out.push({ at, event: event as unknown as AgentEvent });
  }
  return out;
}

/** What a store can give back: the JSON form of an event. */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const sessionEvents = (id: string, built: { at: number; event: AgentEvent }[]): SessionEvent[] =>
  built.map(({ at, event }, i) => ({ seq: i + 1, sessionId: id, at, event }));

describe("the compact stored form of event runs", () => {
  it("decodes into exactly the events encoded, none sharing an object with another", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200 }), (steps) => {
        const events = sessionEvents("s", build(steps));
        const batch = encodeBatch(events);
        expect(batch.first).toBe(1);
        expect(batch.last).toBe(events.length);
        expect(batch.maxAt).toBe(Math.max(...events.map((e) => e.at)));
        const decoded = decodeBody(batch.body);
        // Equal as JSON text: the same keys, in the same order, with the same values.
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(events.map(({ at, event }) => [at, event])));
        const objects = new Set<unknown>();
        for (const [, event] of decoded) {
          for (const value of Object.values(event)) {
            if (typeof value !== "object" || value === null) continue;
            expect(objects.has(value)).toBe(false);
            objects.add(value);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("encodes the same batches with one encoder reused across them, as the event log uses it", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 120 }), fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 6 }), (steps, cuts) => {
        const events = sessionEvents("s", build(steps));
        const encoder = new BatchEncoder();
        const decoded: unknown[] = [];
        let from = 0;
        for (let c = 0; from < events.length; c++) {
          const to = Math.min(events.length, from + cuts[c % cuts.length]!);
          for (let i = from; i < to; i++) encoder.add(events[i]!);
          const batch = encoder.finish()!;
          expect([batch.first, batch.last]).toEqual([from + 1, to]);
          expect(batch.body).toBe(encodeBatch(events, from, to).body);
          decoded.push(...decodeBody(batch.body));
          from = to;
        }
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(events.map(({ at, event }) => [at, event])));
      }),
      { numRuns: 200 },
    );
  });

  it("stores a run of deltas in a fraction of the per-event form", () => {
    const events = sessionEvents("s", build(Array.from({ length: 1000 }, () => ({ change: "none" as const, text: "x", atStep: 0, eventAtStep: 0 }))));
    const perEvent = JSON.stringify(events.map(({ at, event }) => [at, event]));
    const { body } = encodeBatch(events);
    expect(body.length * 10).toBeLessThan(perEvent.length);
    // One record: the first event, the 999 texts and two uniform steps.
    expect((JSON.parse(body) as unknown[]).length).toBe(1);
  });

  it("stores mostly-zero steps as the non-zero ones only, so a run's size does not grow by a number per event", () => {
    // A run spanning a few milliseconds: one step of 1 every 250 events in both step lists.
    const steps = Array.from({ length: 1000 }, (_, i) => ({ change: "none" as const, text: "x", atStep: i % 250 === 0 ? 1 : 0, eventAtStep: i % 250 === 0 ? 1 : 0 }));
    const events = sessionEvents("s", build(steps));
    const { body } = encodeBatch(events);
    const [[, , texts, atSteps, eventAtSteps]] = JSON.parse(body) as [[number, unknown, string[], unknown, unknown]];
    expect(texts).toHaveLength(999);
    expect(atSteps).toEqual({ at: [249, 499, 749], by: [1, 1, 1] });
    expect(eventAtSteps).toEqual({ at: [249, 499, 749], by: [1, 1, 1] });
    expect(JSON.stringify(decodeBody(body))).toBe(JSON.stringify(events.map(({ at, event }) => [at, event])));
  });

  it("reads runs stored with whole step lists (the form before sparse steps)", () => {
    const events = sessionEvents("s", build([0, 1, 0, 2].map((atStep) => ({ change: "none" as const, text: `t${atStep}`, atStep, eventAtStep: atStep * 10 }))));
    const [first, ...rest] = events;
    const steps = (pick: (e: SessionEvent, i: number) => number): number[] => rest.map(pick);
    const older = JSON.stringify([
      [
        first!.at,
        first!.event,
        rest.map((e) => (e.event as { text: string }).text),
        steps((e, i) => e.at - events[i]!.at),
        steps((e, i) => (e.event as { at: number }).at - (events[i]!.event as { at: number }).at),
      ],
    ]);
    expect(JSON.stringify(decodeBody(older))).toBe(JSON.stringify(events.map(({ at, event }) => [at, event])));
  });

  it("reads bodies of the older form (one [at, event] per event)", () => {
    const events = sessionEvents("s", build([{ change: "none", text: "a", atStep: 0, eventAtStep: 0 }, { change: "notice", text: "", atStep: 1, eventAtStep: 0 }]));
    const old = JSON.stringify(events.map(({ at, event }) => [at, event]));
    expect(decodeBody(old)).toEqual(json(events.map(({ at, event }) => [at, event])));
  });
});

async function ownedSession(store: SessionStore): Promise<string> {
  const record = newSessionRecord();
  await store.create(record);
  await store.acquireOwner(record.id, "host", 600_000);
  return record.id;
}

async function readAll(log: Awaited<ReturnType<typeof openEventLog>>, after: number, until: number): Promise<SessionEvent[]> {
  const got: SessionEvent[] = [];
  if (after >= until) return got;
  for await (const entry of log.subscribe({ after })) {
    got.push(entry);
    if (entry.seq >= until) break;
  }
  return got;
}

describe("event runs through an event log on SQLite", () => {
  for (const eventWriter of ["worker", "inline"] as const) {
    it(`replays from any after equal to the appended and the live events (${eventWriter} writer)`, async () => {
      const store = sqliteSessionStore({ path: join(dir, `log-${eventWriter}.db`), eventWriter });
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(step, { minLength: 1, maxLength: 150 }),
            fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
            fc.nat(),
            async (steps, bursts, seed) => {
              const id = await ownedSession(store);
              const log = await openEventLog({ store, sessionId: id, owner: "host", maxBatch: 17, pageSize: 9 });
              const built = build(steps);
              const total = built.length;
              const live = readAll(log, 0, total);
              const appended: SessionEvent[] = [];
              const midway: { after: number; got: Promise<SessionEvent[]> }[] = [];
              let next = 0;
              for (let b = 0; next < total; b++) {
                const count = bursts[b % bursts.length]!;
                for (let i = 0; i < count && next < total; i++) appended.push(log.append(built[next++]!.event));
                // A subscriber joining while batches are in the store's hands replays them from there.
                const after = (seed + b) % (log.lastSeq + 1);
                midway.push({ after, got: readAll(log, after, total) });
                if (b % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
              }
              await log.flush();
              expect(await live).toEqual(appended);
              for (const { after, got } of midway) expect(await got).toEqual(appended.slice(after));
              // Every after on short logs; on longer ones a spread of them, the edges included.
              const stride = Math.max(1, Math.floor(total / 30));
              for (let after = 0; after <= total; after += after === total - 1 ? 1 : Math.min(stride, Math.max(1, total - 1 - after))) {
                expect(json(await readAll(log, after, total))).toEqual(json(appended.slice(after)));
              }
              expect(json(await store.readEvents(id, { after: 0, limit: total }))).toEqual(json(appended));
              await log.close();
            },
          ),
          { numRuns: eventWriter === "worker" ? 40 : 60 },
        );
      } finally {
        await store.close();
      }
    }, 120_000);
  }

  it("keeps exactly the newest events when a count trim cuts through a run", async () => {
    const store = sqliteSessionStore({ path: join(dir, "trim.db") });
    try {
      const id = await ownedSession(store);
      const steps = Array.from({ length: 300 }, (_, i) => ({ change: i % 100 === 99 ? ("itemId" as const) : ("none" as const), text: `t${i}`, atStep: i % 2, eventAtStep: 1 }));
      const events = sessionEvents(id, build(steps));
      await store.appendEvents(id, "host", events);
      expect(await store.trimEvents(id, { maxEvents: 150 })).toBe(150);
      expect(json(await store.readEvents(id, { after: 0 }))).toEqual(json(events.slice(150)));
      expect(await store.trimEvents(id, { maxEvents: 7 })).toBe(143);
      expect(json(await store.readEvents(id, { after: 0 }))).toEqual(json(events.slice(293)));
    } finally {
      await store.close();
    }
  });

  it("reads a log written in the older form and continues it", async () => {
    const path = join(dir, "old.db");
    const store = sqliteSessionStore({ path });
    try {
      const id = await ownedSession(store);
      const old = sessionEvents(id, build([0, 1, 2].map((i) => ({ change: "none" as const, text: `o${i}`, atStep: 0, eventAtStep: 0 }))));
      const db = new Database(path);
      db.prepare("INSERT INTO session_events (session_id, first_seq, last_seq, max_at, body) VALUES (?, 1, 3, ?, ?)").run(
        id,
        old[2]!.at,
        JSON.stringify(old.map(({ at, event }) => [at, event])),
      );
      db.prepare("UPDATE sessions SET last_seq = 3 WHERE id = ?").run(id);
      db.close();
      const log = await openEventLog({ store, sessionId: id, owner: "host" });
      expect(log.lastSeq).toBe(3);
      const more = build([0, 1, 2, 3].map((i) => ({ change: "none" as const, text: `n${i}`, atStep: 0, eventAtStep: 0 })));
      const appended = more.map(({ event }) => log.append({ ...event, seq: (event as { seq: number }).seq + 3 } as AgentEvent));
      await log.flush();
      expect(json(await readAll(log, 0, 7))).toEqual(json([...old, ...appended]));
      expect(json(await readAll(log, 2, 7))).toEqual(json([...old.slice(2), ...appended]));
      await log.close();
    } finally {
      await store.close();
    }
  });
});
