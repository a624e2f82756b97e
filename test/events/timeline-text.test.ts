/**
 * The timeline follows a message's text once for the run's assistant text and the transcript's
 * merged delta: both views stay what they were when each kept its own copy.
 */
import { describe, expect, it } from "vitest";

import { RunTimeline } from "../../src/events/timeline.js";
import type { AgentEvent } from "../../src/events/types.js";

const timeline = () => new RunTimeline({ runId: "r1", bufferSize: 10_000, overflow: "block" });
const delta = (itemId: string, text: string, type: "message.delta" | "reasoning.delta" = "message.delta") => ({ type, itemId, text });
const notice = { type: "notice", level: "info", code: "fake_answer", message: "between" } as const;
/** The transcript without stamps, as `type:itemId:text`. */
const texts = (events: AgentEvent[]) =>
  events.map((event) => ("itemId" in event && "text" in event ? `${event.type}:${event.itemId}:${event.text}` : event.type));

describe("RunTimeline text", () => {
  it("deltas of one message: one merged entry and the same assistant text, also read mid-stream", () => {
    const t = timeline();
    for (let i = 0; i < 600; i++) t.publishDelta(delta("m1", String(i % 10)));
    const expected = Array.from({ length: 600 }, (_, i) => String(i % 10)).join("");
    expect(texts(t.transcript())).toEqual([`message.delta:m1:${expected}`]);
    t.publishDelta(delta("m1", "!"));
    expect(t.assistantText).toBe(`${expected}!`);
    expect(texts(t.transcript())).toEqual([`message.delta:m1:${expected}!`]);
  });

  it("deltas of a message split by another event: two entries with their own parts, the assistant text whole", () => {
    const t = timeline();
    t.publishDelta(delta("m1", "ab"));
    t.publishDelta(delta("m1", "cd"));
    t.publish(notice);
    t.publishDelta(delta("m1", "ef"));
    t.publishDelta(delta("r1", "think", "reasoning.delta"));
    t.publishDelta(delta("m1", "gh"));
    expect(t.assistantText).toBe("abcdefgh");
    expect(texts(t.transcript())).toEqual(["message.delta:m1:abcd", "notice", "message.delta:m1:ef", "reasoning.delta:r1:think", "message.delta:m1:gh"]);
  });

  it("a new message starts a new assistant text; the completed message sets it, whatever the deltas said", async () => {
    const t = timeline();
    t.publishDelta(delta("m1", "first"));
    t.publishDelta(delta("m2", "sec"));
    t.publishDelta(delta("m2", "ond"));
    expect(t.assistantText).toBe("second");
    t.publish({ type: "message.completed", itemId: "m2", text: "second, redacted" });
    expect(t.assistantText).toBe("second, redacted");
    t.publishDelta(delta("m3", "third"));
    t.publish({ type: "message.completed", itemId: "m3", text: "third" });
    await t.finish({ type: "run.cancelled", reason: "done" });
    expect(texts(t.transcript())).toEqual([
      "message.delta:m1:first",
      "message.delta:m2:second",
      "message.completed:m2:second, redacted",
      "message.delta:m3:third",
      "message.completed:m3:third",
      "run.cancelled",
    ]);
    expect(t.assistantText).toBe("third");
  });

  it("a message completed for another item leaves the open deltas' text as they merged it", () => {
    const t = timeline();
    t.publishDelta(delta("m1", "one"));
    t.publish({ type: "message.completed", itemId: "m0", text: "one" });
    t.publishDelta(delta("m1", "two"));
    expect(texts(t.transcript())).toEqual(["message.delta:m1:one", "message.completed:m0:one", "message.delta:m1:two"]);
    expect(t.assistantText).toBe("two");
  });
});
