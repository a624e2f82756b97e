/**
 * The fast decoder of `item/agentMessage/delta` lines: whatever it takes decodes exactly as
 * `JSON.parse` does (values and key order), it takes the lines app-server really writes, and it
 * declines everything else, which then goes through `JSON.parse` (or fails there as before).
 * Also the mapper's delta path that follows it.
 */
import { readFileSync, readdirSync } from "node:fs";

import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { decodeDeltaLine } from "../../../src/drivers/codex/delta-line.js";
import { TurnMapper } from "../../../src/drivers/codex/events.js";
import type { DriverEvent } from "../../../src/events/types.js";
import { NdjsonFramer, type JsonLine } from "../../../src/process/framer.js";

const FRAMES = new URL("../../fixtures/frames/codex/", import.meta.url);
const METHOD = "item/agentMessage/delta";

/** Same values, same key order, at every level. */
function expectSameAsJsonParse(decoded: unknown, line: string): void {
  const parsed: unknown = JSON.parse(line);
  expect(decoded).toStrictEqual(parsed);
  expect(JSON.stringify(decoded)).toBe(JSON.stringify(parsed));
}

function deltaLine(params: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ method: METHOD, params, ...extra });
}

const ids = { threadId: "019a2951-0000-7000-8000-000000000000", turnId: "turn_1", itemId: "msg_1" };

describe("decodeDeltaLine", () => {
  it("takes every agent-message delta the real app-server wrote, as JSON.parse reads it, and no other recorded line", () => {
    let taken = 0;
    for (const file of readdirSync(FRAMES).filter((f) => f.endsWith(".jsonl"))) {
      for (const line of readFileSync(new URL(file, FRAMES), "utf8").split("\n").filter((l) => l !== "")) {
        const decoded = decodeDeltaLine(line);
        const isDelta = (JSON.parse(line) as { method?: unknown }).method === METHOD;
        expect(decoded !== undefined).toBe(isDelta);
        if (decoded === undefined) continue;
        expectSameAsJsonParse(decoded, line);
        taken++;
      }
    }
    expect(taken).toBeGreaterThan(10);
  });

  it("decodes any text and identifiers exactly as JSON.parse does, and takes every line whose identifiers need no escape", () => {
    const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.constantFrom("", "\n", '"', "\\", "\u0000", "\u001f", "\u2028", "\uD800", "é😀", "\\u0041"));
    fc.assert(
      fc.property(anyText, anyText, anyText, anyText, fc.option(fc.integer({ min: -1e15 + 1, max: 1e15 - 1 }), { nil: undefined }), (threadId, turnId, itemId, delta, emittedAtMs) => {
        const line = deltaLine({ threadId, turnId, itemId, delta }, emittedAtMs === undefined ? {} : { emittedAtMs });
        const decoded = decodeDeltaLine(line);
        if ([threadId, turnId, itemId].every((id) => JSON.stringify(id) === `"${id}"`)) expect(decoded).toBeDefined();
        if (decoded !== undefined) expectSameAsJsonParse(decoded, line);
      }),
      { numRuns: 2_000 },
    );
  });

  it("never takes a line JSON.parse refuses or reads differently", () => {
    const prefix = `{"method":"${METHOD}","params":{"threadId":"`;
    const tail = fc.string({ unit: "binary-ascii", maxLength: 120 });
    const valid = `${deltaLine({ ...ids, delta: "hi" })}`;
    const mutated = fc.tuple(fc.nat(valid.length), fc.nat(3), fc.string({ unit: "binary-ascii", maxLength: 3 })).map(([at, cut, insert]) => valid.slice(0, at) + insert + valid.slice(at + cut));
    fc.assert(
      fc.property(fc.oneof(tail.map((t) => prefix + t), mutated), (line) => {
        const decoded = decodeDeltaLine(line);
        if (decoded === undefined) return;
        expectSameAsJsonParse(decoded, line);
      }),
      { numRuns: 5_000 },
    );
  });

  it("declines the forms it does not know, leaving them to JSON.parse", () => {
    const base = deltaLine({ ...ids, delta: "hi" });
    const declined = [
      base.replace(`"params":`, `"params": `), // whitespace
      ` ${base}`,
      `${base} `,
      JSON.stringify({ params: { ...ids, delta: "hi" }, method: METHOD }), // another key order
      deltaLine({ turnId: ids.turnId, threadId: ids.threadId, itemId: ids.itemId, delta: "hi" }),
      deltaLine({ ...ids, delta: "hi", extra: 1 }), // a field the decoder does not know
      deltaLine({ ...ids, delta: "hi" }, { id: 7 }),
      deltaLine({ ...ids, itemId: 'msg"1', delta: "hi" }), // an escape in an identifier
      deltaLine({ ...ids, delta: 5 }), // not a string
      deltaLine({ ...ids, delta: "hi" }, { emittedAtMs: 1.5 }),
      deltaLine({ ...ids, delta: "hi" }, { emittedAtMs: 1e21 }),
      base.slice(0, -1) + `,"emittedAtMs":-0}`,
      base.slice(0, -1) + `,"emittedAtMs":0123}`, // invalid JSON
      base.replace(`"hi"`, `"h\u0001i"`), // a raw control character: invalid JSON
      base.replace(`"hi"`, `"h\\xi"`), // an invalid escape
      `${base}x`,
      base.slice(0, -1),
      JSON.stringify({ method: "item/reasoning/textDelta", params: { ...ids, delta: "hi" } }),
    ];
    for (const line of declined) expect(decodeDeltaLine(line), line).toBeUndefined();
    expectSameAsJsonParse(decodeDeltaLine(deltaLine({ ...ids, delta: "a\nb\t\"c\" \\ \u00e9" }, { emittedAtMs: 1_796_515_742_884 })), deltaLine({ ...ids, delta: "a\nb\t\"c\" \\ \u00e9" }, { emittedAtMs: 1_796_515_742_884 }));
  });

  it("as the framer's decoder: taken and declined lines, invalid ones and line numbers come out as without it", () => {
    const lines = [
      deltaLine({ ...ids, delta: "one" }),
      JSON.stringify({ method: "turn/started", params: { threadId: ids.threadId, turn: { id: "t" } } }),
      "not json",
      deltaLine({ ...ids, delta: "t\u00e9o" }),
      `${deltaLine({ ...ids, delta: "x" })} trailing`,
      "",
      deltaLine({ ...ids, delta: "three" }),
    ];
    const bytes = Buffer.from(`${lines.join("\n")}\n`);
    const frame = (decode?: (line: string) => unknown): JsonLine[] => {
      const framer = new NdjsonFramer(decode ? { decode } : {});
      const out: JsonLine[] = [];
      // Split anywhere, so lines also take the path of a line that spans chunks.
      for (let at = 0; at < bytes.length; at += 37) framer.push(bytes.subarray(at, Math.min(bytes.length, at + 37)), out);
      framer.end(out);
      return out;
    };
    const plain = frame();
    const fast = frame(decodeDeltaLine);
    expect(fast.map(describeLine)).toEqual(plain.map(describeLine));
    expect(fast.filter((l) => l.kind === "error").map((l) => (l.kind === "error" ? l.line : 0))).toEqual([3, 5]);
  });
});

function describeLine(line: JsonLine): unknown {
  return line.kind === "json" ? { json: JSON.stringify(line.value) } : { error: line.error.code, line: line.line };
}

describe("codex mapper: the agent-message delta path", () => {
  function mapper(): { m: TurnMapper; events: DriverEvent[] } {
    const events: DriverEvent[] = [];
    const m = new TurnMapper((event) => {
      events.push(event);
      return undefined;
    });
    m.threadId = "thr";
    return { m, events };
  }
  const delta = (itemId: unknown, text: unknown, threadId: unknown = "thr") => ({ threadId, turnId: "t", itemId, delta: text });

  it("emits a delta per non-empty text of this thread, with its provenance; other threads and malformed frames are dropped", async () => {
    const { m, events } = mapper();
    await m.handle(METHOD, delta("a", "one"));
    await m.handle(METHOD, delta("a", "x", "other-thread"));
    await m.handle(METHOD, delta("a", ""));
    await m.handle(METHOD, delta(7, "x"));
    await m.handle(METHOD, delta("a", 7));
    await m.handle(METHOD, "not an object");
    await m.handle(METHOD, undefined);
    await m.handle(METHOD, { itemId: "a", delta: "two" }); // no threadId: kept, as for every notification
    expect(events).toEqual([
      { type: "message.delta", itemId: "a", text: "one", provenance: { provider: "codex", event: METHOD, itemId: "a" } },
      { type: "message.delta", itemId: "a", text: "two", provenance: { provider: "codex", event: METHOD, itemId: "a" } },
    ]);
  });

  it("keeps each item's text apart when items interleave and when an id comes back after its item completed", async () => {
    const { m, events } = mapper();
    for (const [id, text] of [["a", "A1"], ["b", "B1"], ["a", "A2"], ["a", "A3"], ["b", "B2"]] as const) await m.handle(METHOD, delta(id, text));
    // A completion without text takes the streamed text; the id's later deltas start afresh.
    await m.handle("item/completed", { threadId: "thr", turnId: "t", item: { type: "agentMessage", id: "a" } });
    await m.handle(METHOD, delta("a", "again"));
    await m.closeOpenItems();
    const completed = events.filter((e) => e.type === "message.completed").map((e) => (e.type === "message.completed" ? [e.itemId, e.text] : []));
    expect(completed).toEqual([
      ["a", "A1A2A3"],
      ["b", "B1B2"],
      ["a", "again"],
    ]);
  });
});
