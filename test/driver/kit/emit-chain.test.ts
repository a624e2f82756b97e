/** The kit's ordered emit chain: one event at a time in order, nothing after a terminal, the first sink failure rethrown. */
import { describe, expect, it } from "vitest";

import { OrderedEmitter } from "../../../src/driver/kit/emit-chain.js";
import type { DriverEvent } from "../../../src/events/types.js";
import { deferred, type Deferred } from "./helpers.js";

const delta = (text: string): DriverEvent => ({ type: "message.delta", itemId: "m1", text });

describe("OrderedEmitter", () => {
  it("hands events to the sink one at a time, in the order they were emitted", async () => {
    const started: string[] = [];
    const pending: Deferred<void>[] = [];
    const emitter = new OrderedEmitter({
      emit: (event) => {
        started.push(event.type === "message.delta" ? event.text : event.type);
        const gate = deferred();
        pending.push(gate);
        return gate.promise;
      },
    });
    const first = emitter.emit(delta("a"));
    const second = emitter.emit(delta("b"));
    const third = emitter.emit(delta("c"));
    await Promise.resolve();
    expect(started).toEqual(["a"]);
    pending[0]!.resolve();
    await first;
    await Promise.resolve();
    expect(started).toEqual(["a", "b"]);
    pending[1]!.resolve();
    await second;
    await Promise.resolve();
    pending[2]!.resolve();
    await third;
    await emitter.drain();
    expect(started).toEqual(["a", "b", "c"]);
  });

  it("drops what is emitted after a terminal event", async () => {
    const seen: string[] = [];
    const emitter = new OrderedEmitter({ emit: async (event) => void seen.push(event.type) });
    await emitter.emit(delta("a"));
    expect(emitter.terminalEmitted).toBe(false);
    await emitter.emit({ type: "run.completed" });
    expect(emitter.terminalEmitted).toBe(true);
    await emitter.emit(delta("late"));
    await emitter.emit({ type: "run.failed", error: { code: "provider_error", message: "late", retryable: false } } as DriverEvent);
    await emitter.drain();
    expect(seen).toEqual(["message.delta", "run.completed"]);
  });

  it("stops at the sink's first failure and rethrows it from drain()", async () => {
    const failure = new Error("consumer went away");
    const seen: string[] = [];
    const emitter = new OrderedEmitter({
      emit: async (event) => {
        if (event.type === "message.delta" && event.text === "b") throw failure;
        seen.push(event.type === "message.delta" ? event.text : event.type);
      },
    });
    const emits = [emitter.emit(delta("a")), emitter.emit(delta("b")), emitter.emit(delta("c"))];
    const settled = await Promise.allSettled(emits);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    await emitter.settled();
    await expect(emitter.drain()).rejects.toBe(failure);
    expect(seen).toEqual(["a"]);
  });
});
