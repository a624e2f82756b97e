/**
 * A run streaming a long answer keeps its text about once: 200 000 deltas carrying 30 MB,
 * then the completed message, and what the host holds after a collection (the result, the
 * transcript) grows by less than 1.5 times the text (it held it twice before: the
 * merged deltas and the completed message). A bound on bytes, not on time.
 */
import { describe, expect, it } from "vitest";

import { createAgent, type Driver } from "../../src/index.js";
import { TextAccumulator } from "../../src/events/text-accumulator.js";
import { fakeDriver } from "../../src/testing/index.js";
import { heldMiB } from "./helpers.js";

const DELTAS = 200_000;
const DELTA_CHARS = 150;
const TEXT_MIB = (DELTAS * DELTA_CHARS) / 2 ** 20;
const BASE = "the quick brown fox jumps over the lazy dog, ".repeat(8);

/** Streams the answer as a provider's reader would (a fresh string per delta) and completes the message with its own copy. */
function longAnswerDriver(): Driver {
  const base = fakeDriver();
  return {
    ...base,
    async run(_request, sink) {
      const text = new TextAccumulator();
      for (let i = 0; i < DELTAS; i++) {
        const start = i % 64;
        const delta = BASE.slice(start, start + DELTA_CHARS - 1) + String(i % 10);
        const pending = sink.emit({ type: "message.delta", itemId: "m1", text: delta });
        if (pending) await pending;
        text.append(delta);
      }
      const full = text.toString();
      await sink.emit({ type: "message.completed", itemId: "m1", text: full });
      return { text: full };
    },
  };
}

describe.skipIf((globalThis as { gc?: unknown }).gc === undefined)("a long streamed answer", () => {
  it(`${DELTAS / 1000}k deltas (${TEXT_MIB.toFixed(0)} MiB of text): the result and transcript hold less than 1.5 times the text`, async () => {
    const agent = createAgent(longAnswerDriver(), { workspace: process.cwd() });
    try {
      const before = heldMiB();
      const stream = agent.stream("write a long answer");
      let deltas = 0;
      for await (const event of stream) if (event.type === "message.delta") deltas++;
      const result = await stream.result;
      const grown = heldMiB() - before;
      expect(deltas).toBe(DELTAS);
      expect(result.text.length).toBe(DELTAS * DELTA_CHARS);
      expect(grown).toBeLessThan(1.5 * TEXT_MIB);
    } finally {
      await agent.close();
    }
  });
});
