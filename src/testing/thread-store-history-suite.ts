/**
 * The history cases of the thread store suite (`runThreadStoreSuite` registers them): appending
 * turns under the lease, numbering, paging newest first with `before`/`limit` at every edge,
 * detached copies, deletion, large transcripts and, with `reopen`, durability.
 */
import assert from "node:assert/strict";

import type { AgentEvent } from "../events/types.js";
import type { HistoryTurn, NewHistoryTurn, NewThreadRecord, ThreadStore } from "../thread/store.js";
import { HISTORY_FIELD_CAP_BYTES, HISTORY_TURN_CAP_BYTES } from "../thread/transcript.js";
import type { ConformanceRunner } from "./conformance.js";
import { hasCode, type StoreCase } from "./store-suite-kit.js";

export interface HistoryCaseContext {
  runner: ConformanceRunner;
  timeout: number;
  withStore: (body: StoreCase<ThreadStore>) => () => Promise<void>;
  makeStore: () => ThreadStore | Promise<ThreadStore>;
  reopen: ((store: ThreadStore) => ThreadStore | Promise<ThreadStore>) | undefined;
  newRecord: (overrides?: Partial<NewThreadRecord>) => NewThreadRecord;
}

/** A turn as a thread would append it; `text` becomes its assistant message. */
export function sampleTurn(runId: string, text = `answer of ${runId}`): NewHistoryTurn {
  const base = { runId, threadId: "t", at: 1_700_000_000_000 };
  const events = [
    { ...base, seq: 0, type: "run.started", driver: "fake", schemaVersion: 1 },
    { ...base, seq: 1, type: "tool.started", callId: "c1", kind: "command", title: "ls", command: "ls -la", rawInput: { cmd: ["ls", "-la"] } },
    { ...base, seq: 2, type: "tool.completed", callId: "c1", status: "completed", output: "a\nb\n", exitCode: 0 },
    { ...base, seq: 3, type: "message.completed", itemId: "m1", text, provenance: { provider: "fake", itemId: "m1" } },
  ] as unknown as AgentEvent[];
  return {
    runId,
    status: "completed",
    startedAt: "2026-01-02T03:04:05.006Z",
    endedAt: "2026-01-02T03:04:07.890Z",
    prompt: `prompt of ${runId}`,
    inputs: [{ name: "diagram.png", kind: "image", mediaType: "image/png", size: 1234 }],
    events,
  };
}

/** Appends `count` turns as `owner` (who must hold the lease) and returns them as stored. */
async function appendTurns(store: ThreadStore, id: string, owner: string, count: number, prefix = "run"): Promise<HistoryTurn[]> {
  const out: HistoryTurn[] = [];
  for (let i = 1; i <= count; i++) out.push(await store.appendTurn(id, owner, sampleTurn(`${prefix}-${i}`)));
  return out;
}

const numbers = (turns: HistoryTurn[]): number[] => turns.map((t) => t.turn);

/** Register the history cases (inside the suite's `describe`). */
// long-function: registers the history cases one after another; each case is short and stands alone
export function registerHistoryCases(ctx: HistoryCaseContext): void {
  const { describe, it } = ctx.runner;
  const { timeout, withStore, newRecord } = ctx;

  describe("history", () => {
    it("an empty or unknown thread has an empty history", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      assert.deepEqual(await store.history(id), { turns: [] });
      assert.deepEqual(await store.history("no-such-thread"), { turns: [] });
      assert.deepEqual(await store.history(id, { before: 1, limit: 1 }), { turns: [] });
    }), timeout);

    it("appends turns as the lease holder, numbered from 1, and reads them back whole", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "owner", 60_000);
      const input = sampleTurn("run-1");
      const first = await store.appendTurn(id, "owner", input);
      assert.deepEqual(first, { turn: 1, ...input }, "the stored turn is the entry plus its number");
      const rest = await appendTurns(store, id, "owner", 2, "later");
      assert.deepEqual(numbers(rest), [2, 3]);
      const page = await store.history(id);
      assert.deepEqual(page, { turns: [rest[1], rest[0], first] }, "newest first, no older page");
      assert.deepEqual((await store.get(id))?.checkpoint, { turns: 0 }, "appending leaves the checkpoint alone");
    }), timeout);

    it("refuses appends from anyone but the lease holder, and for unknown threads", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      await assert.rejects(store.appendTurn(id, "nobody", sampleTurn("r")), hasCode("lease_lost"), "no lease at all");
      await store.acquireLease(id, "holder", 60_000);
      await assert.rejects(store.appendTurn(id, "intruder", sampleTurn("r")), hasCode("lease_lost"), "not the holder");
      await store.releaseLease(id, "holder");
      await assert.rejects(store.appendTurn(id, "holder", sampleTurn("r")), hasCode("lease_lost"), "after release");
      await assert.rejects(store.appendTurn("no-such-thread", "holder", sampleTurn("r")), hasCode("thread_not_found"));
      assert.deepEqual(await store.history(id), { turns: [] }, "nothing was written");
    }), timeout);

    it("pages newest first with before and limit, at every edge", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "owner", 60_000);
      const all = await appendTurns(store, id, "owner", 5);
      const page = async (options: { before?: number; limit?: number }) => {
        const got = await store.history(id, options);
        return { turns: numbers(got.turns), nextBefore: got.nextBefore };
      };
      assert.deepEqual(await page({ limit: 2 }), { turns: [5, 4], nextBefore: 4 });
      assert.deepEqual(await page({ before: 4, limit: 2 }), { turns: [3, 2], nextBefore: 2 });
      assert.deepEqual(await page({ before: 2, limit: 2 }), { turns: [1], nextBefore: undefined }, "the last page");
      assert.deepEqual(await page({ before: 3, limit: 2 }), { turns: [2, 1], nextBefore: undefined }, "a page ending exactly at turn 1");
      assert.deepEqual(await page({ limit: 5 }), { turns: [5, 4, 3, 2, 1], nextBefore: undefined }, "limit equal to the count");
      assert.deepEqual(await page({ limit: 1000 }), { turns: [5, 4, 3, 2, 1], nextBefore: undefined });
      assert.deepEqual(await page({ before: 1 }), { turns: [], nextBefore: undefined }, "nothing before turn 1");
      assert.deepEqual(await page({ before: 99 }), { turns: [5, 4, 3, 2, 1], nextBefore: undefined }, "before past the newest");
      assert.deepEqual(await page({ limit: 1 }), { turns: [5], nextBefore: 5 });
      assert.deepEqual(await page({ before: 5, limit: 1 }), { turns: [4], nextBefore: 4 });
      // Walking the cursor visits every turn once, newest to oldest.
      const walked: HistoryTurn[] = [];
      let before: number | undefined;
      do {
        const got = await store.history(id, { limit: 2, ...(before !== undefined ? { before } : {}) });
        walked.push(...got.turns);
        before = got.nextBefore;
      } while (before !== undefined);
      assert.deepEqual(walked, [...all].reverse());
    }), timeout);

    it("refuses malformed history options with config_invalid", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      for (const options of [{ limit: 0 }, { limit: 1001 }, { limit: 1.5 }, { before: 0 }, { before: -1 }, { before: "3" }, { limit: Number.NaN }]) {
        await assert.rejects(store.history(id, options as never), hasCode("config_invalid"), JSON.stringify(options));
      }
      await store.acquireLease(id, "owner", 60_000);
      for (const bad of [{ ...sampleTurn("r"), status: "done" }, { ...sampleTurn("r"), events: "x" }, { ...sampleTurn("r"), runId: 1 }]) {
        await assert.rejects(store.appendTurn(id, "owner", bad as never), hasCode("config_invalid"));
      }
    }), timeout);

    it("keeps each thread's history apart, and detaches turns in and out", withStore(async (store) => {
      const a = (await store.create(newRecord())).id;
      const b = (await store.create(newRecord())).id;
      await store.acquireLease(a, "owner", 60_000);
      await store.acquireLease(b, "owner", 60_000);
      const input = sampleTurn("a-1");
      const stored = await store.appendTurn(a, "owner", input);
      await store.appendTurn(b, "owner", sampleTurn("b-1"));
      await store.appendTurn(b, "owner", sampleTurn("b-2"));
      const snapshot = structuredClone(stored);
      input.prompt = "mutated";
      (input.events[0] as { seq: number }).seq = 99;
      input.inputs[0]!.name = "mutated";
      stored.prompt = "mutated";
      (stored.events[1] as { seq: number }).seq = 98;
      const [got] = (await store.history(a)).turns;
      assert.deepEqual(got, snapshot, "host mutation never reaches the store");
      got!.events.length = 0;
      assert.deepEqual((await store.history(a)).turns, [snapshot], "a turn read earlier is a detached copy");
      assert.deepEqual(numbers((await store.history(b)).turns), [2, 1], "numbering is per thread");
    }), timeout);

    it("deleting a thread deletes its history; a new thread with that id starts at turn 1", withStore(async (store) => {
      const input = newRecord();
      await store.create(input);
      await store.acquireLease(input.id, "owner", 60_000);
      await appendTurns(store, input.id, "owner", 3);
      await store.releaseLease(input.id, "owner");
      assert.equal(await store.delete(input.id), true);
      assert.deepEqual(await store.history(input.id), { turns: [] }, "the history is gone");
      await store.create(input);
      await store.acquireLease(input.id, "owner", 60_000);
      const again = await store.appendTurn(input.id, "owner", sampleTurn("new-1"));
      assert.equal(again.turn, 1);
      assert.deepEqual(numbers((await store.history(input.id)).turns), [1]);
    }), timeout);

    it("stores a turn at the transcript cap whole: large outputs, diffs, any Unicode and NUL", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "owner", 60_000);
      const turn = largeTurn();
      assert.ok(JSON.stringify(turn.events).length > HISTORY_TURN_CAP_BYTES * 0.85, "the turn is near the cap");
      const stored = await store.appendTurn(id, "owner", turn);
      assert.deepEqual(stored, { turn: 1, ...turn });
      assert.deepEqual((await store.history(id)).turns, [stored]);
    }), timeout);

    it("continues the numbering under a new holder after a takeover; the old holder appends nothing", withStore(async (store) => {
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "first", 50);
      await store.appendTurn(id, "first", sampleTurn("first-1"));
      await new Promise((resolve) => setTimeout(resolve, 80));
      const deadline = Date.now() + 10_000;
      while (!(await store.acquireLease(id, "second", 60_000))) {
        assert.ok(Date.now() < deadline, "an expired lease can be taken over");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await assert.rejects(store.appendTurn(id, "first", sampleTurn("first-2")), hasCode("lease_lost"));
      const next = await store.appendTurn(id, "second", sampleTurn("second-1"));
      assert.equal(next.turn, 2);
      assert.deepEqual((await store.history(id)).turns.map((t) => t.runId), ["second-1", "first-1"]);
    }), timeout);

    if (ctx.reopen) {
      const reopen = ctx.reopen;
      it("keeps the history after the store is closed and reopened", async () => {
        const first = await ctx.makeStore();
        let second: ThreadStore | undefined;
        try {
          const { id } = await first.create(newRecord());
          await first.acquireLease(id, "owner", 60_000);
          const before = await appendTurns(first, id, "owner", 2);
          await first.close();
          second = await reopen(first);
          assert.deepEqual((await second.history(id)).turns, [...before].reverse());
          const third = await second.appendTurn(id, "owner", sampleTurn("run-3"));
          assert.equal(third.turn, 3, "the holder carries on through the reopened store");
        } finally {
          await first.close();
          await second?.close();
        }
      }, timeout);
    }
  });
}

/** A turn whose events are just under the per-turn cap, with fields at the per-field cap. */
function largeTurn(): NewHistoryTurn {
  const turn = sampleTurn("large", "unicode ü ✓ 𝄞 and a NUL \u0000 and a lone \\ backslash");
  const fieldChars = HISTORY_FIELD_CAP_BYTES - 64;
  const base = { runId: "large", at: 1_700_000_000_000 };
  let seq = turn.events.length;
  const calls = Math.floor((HISTORY_TURN_CAP_BYTES * 0.95) / (2 * fieldChars));
  for (let call = 0; call < calls; call++) {
    const output = `${call}:`.padEnd(fieldChars, "o");
    const diff = `--- a/f${call}\n+++ b/f${call}\n`.padEnd(fieldChars, "+");
    turn.events.push(
      { ...base, seq: seq++, type: "tool.completed", callId: `big-${call}`, status: "completed", output } as unknown as AgentEvent,
      { ...base, seq: seq++, type: "tool.updated", callId: `big-${call}`, files: [{ path: `f${call}`, change: "modified", diff }] } as unknown as AgentEvent,
    );
  }
  return turn;
}
