/**
 * Core publishes events as wire data: whatever a driver hands over (undefined-valued keys, a
 * Date, a NaN), a host receives what JSON would carry, and run.completed carries the plain
 * result summary while stream.result keeps transcript() and raw().
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { AgentEvent, DriverEvent } from "../../src/events/types.js";
import { EVENTS_SCHEMA_VERSION } from "../../src/events/types.js";
import { copyWireData, toWireData } from "../../src/events/wire.js";
import { fakeDriver } from "../../src/testing/index.js";
import { assertWireEvents } from "../../src/testing/wire-events.js";

describe("copyWireData", () => {
  it("copies wire data deeply: equal, sharing no object with the original", () => {
    fc.assert(
      fc.property(fc.json().map((text) => JSON.parse(text) as unknown), (value) => {
        const copied = copyWireData(value);
        expect(copied).toEqual(value);
        const objects = (v: unknown, into: Set<unknown>): Set<unknown> => {
          if (typeof v === "object" && v !== null) {
            into.add(v);
            for (const item of Object.values(v)) objects(item, into);
          }
          return into;
        };
        const originals = objects(value, new Set());
        for (const object of objects(copied, new Set())) expect(originals.has(object)).toBe(false);
      }),
    );
    const copied = copyWireData(JSON.parse('{"__proto__":{"polluted":true},"a":[1,{"b":null}]}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(["__proto__", "a"]);
  });
});

describe("toWireData", () => {
  it("equals the JSON round trip of any value JSON can write", () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withMap: true, withSet: true, withNullPrototype: true, withBoxedValues: false }), (value) => {
        let text: string | undefined;
        try {
          text = JSON.stringify(value);
        } catch {
          return; // not writable (a bigint): not wire data in the first place
        }
        if (text === undefined) return;
        expect(toWireData(value)).toEqual(JSON.parse(text));
      }),
    );
  });

  it("returns wire data itself, without a copy", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const data = JSON.parse(JSON.stringify(value)) as unknown;
        expect(toWireData(data)).toBe(data);
      }),
    );
  });

  it("writes -0 as 0, as JSON does", () => {
    const out = toWireData({ usage: { delta: -0 }, list: [-0, 1] });
    expect(Object.is(out.usage.delta, 0)).toBe(true);
    expect(Object.is(out.list[0], 0)).toBe(true);
  });

  it("drops undefined-valued keys, writes null for NaN and array holes, and never mutates its input", () => {
    const provenance = { provider: "p", itemId: undefined };
    const input = { a: 1, b: undefined, c: [undefined, NaN, 2], d: new Date(0), e: () => 1, nested: { provenance } };
    const out = toWireData(input);
    expect(out).toStrictEqual({ a: 1, c: [null, null, 2], d: "1970-01-01T00:00:00.000Z", nested: { provenance: { provider: "p" } } });
    expect(Object.keys(provenance)).toEqual(["provider", "itemId"]);
    expect("b" in input).toBe(true);
  });

  it("keeps a key named __proto__ as a plain field and ends a cycle with null", () => {
    const withProto = JSON.parse('{"__proto__":{"x":1},"u":null}') as Record<string, unknown>;
    withProto.v = undefined;
    expect(JSON.stringify(toWireData(withProto))).toBe('{"__proto__":{"x":1},"u":null}');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => JSON.stringify(toWireData(cyclic))).not.toThrow();
  });
});

/** Events a sloppy driver emits: keys holding undefined, a Date. */
const SLOPPY: DriverEvent[] = [
  { type: "tool.started", callId: "c1", kind: "command", title: "ls", name: undefined, command: "ls", cwd: undefined, rawInput: { at: new Date(0), skip: undefined } },
  { type: "tool.updated", callId: "c1", output: "a\n", files: undefined },
  { type: "tool.completed", callId: "c1", status: "completed", exitCode: 0, output: undefined },
  { type: "message.delta", itemId: "m1", text: "hi", provenance: { provider: "fake", itemId: undefined } },
  { type: "message.completed", itemId: "m1", text: "hi", provenance: { provider: "fake", messageId: undefined } },
  { type: "usage.observed", usage: { input_tokens: 3, output_tokens: undefined } },
];

describe("a run's events", () => {
  it("are wire data even when the driver emits undefined-valued keys", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: SLOPPY.map((emit) => ({ emit })), text: "hi", usage: { input_tokens: 3 } } }));
    try {
      const stream = agent.stream("go");
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      assertWireEvents(events);
      const started = events.find((e) => e.type === "tool.started");
      expect(started).not.toHaveProperty("name");
      expect(started).toMatchObject({ rawInput: { at: "1970-01-01T00:00:00.000Z" } });
      expect(events.find((e) => e.type === "tool.completed")).not.toHaveProperty("output");
      const result = await stream.result;
      assertWireEvents(result.transcript());
    } finally {
      await agent.close();
    }
  });

  it("start with run.started carrying schemaVersion and end with run.completed carrying the plain result summary", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [{ deltas: { count: 3, text: "ab" } }], usage: { input_tokens: 5 }, providerSessionId: "ps-1" } }));
    try {
      const thread = await agent.startThread();
      const stream = thread.stream("go");
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      expect(events[0]).toMatchObject({ type: "run.started", schemaVersion: EVENTS_SCHEMA_VERSION });
      const completed = events.at(-1)!;
      expect(completed.type).toBe("run.completed");
      if (completed.type !== "run.completed") return;
      const { transcript, raw, ...summary } = result;
      expect(typeof transcript).toBe("function");
      expect(typeof raw).toBe("function");
      expect(completed.result).toStrictEqual(summary);
      expect(completed.result).toMatchObject({ runId: stream.runId, threadId: thread.id, status: "completed", text: "ababab", usage: { input_tokens: 5 } });
      expect(JSON.parse(JSON.stringify(completed))).toStrictEqual(completed);
      // The transcript's terminal is the same plain event.
      expect(result.transcript().at(-1)).toStrictEqual(completed);
      assertWireEvents(events);
    } finally {
      await agent.close();
    }
  });
});
