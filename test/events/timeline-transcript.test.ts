/**
 * The transcript is the run's own record: what a host does to the events it reads, or to the
 * transcript and result it is handed, never changes it.
 */
import { describe, expect, it } from "vitest";

import { RunTimeline } from "../../src/events/timeline.js";
import type { AgentEvent } from "../../src/events/types.js";

const timeline = () => new RunTimeline({ runId: "r1", bufferSize: 100, overflow: "block" });
const usage = () => ({ type: "usage.observed", usage: { input_tokens: 5, output_tokens: 2 } }) as const;
const usageOf = (events: AgentEvent[]) => events.flatMap((event) => (event.type === "usage.observed" ? [event.usage] : []));

describe("RunTimeline transcript", () => {
  it("keeps its own copy of each event a host may read from the buffer", () => {
    const t = timeline();
    t.publish(usage());
    const read = t.buffer.tryShift() as Extract<AgentEvent, { type: "usage.observed" }>;
    read.usage.input_tokens = 999;
    expect(usageOf(t.transcript())).toEqual([{ input_tokens: 5, output_tokens: 2 }]);
  });

  it("once the events are dropped unread, still lists them, and hands out copies", () => {
    const t = timeline();
    t.publish(usage());
    t.eventsUnread();
    t.publish({ type: "usage.observed", usage: { input_tokens: 7 } });
    const first = t.transcript();
    (first[1] as Extract<AgentEvent, { type: "usage.observed" }>).usage.input_tokens = 999;
    expect(usageOf(t.transcript())).toEqual([{ input_tokens: 5, output_tokens: 2 }, { input_tokens: 7 }]);
  });

  it("keeps copies when the events are unread but an observer gets them: the observer is the host's code", () => {
    const mutating = (event: AgentEvent): void => {
      if (event.type === "usage.observed") (event.usage as { input_tokens: number }).input_tokens = 999;
    };
    const t = new RunTimeline({ runId: "r1", bufferSize: 100, overflow: "block", observer: { event: mutating, deltas: false } });
    t.eventsUnread();
    t.publish(usage());
    expect(usageOf(t.transcript())).toEqual([{ input_tokens: 5, output_tokens: 2 }]);
  });

  it("copies the terminal even when the events are unread: its result is shared with the host's", async () => {
    const t = timeline();
    t.eventsUnread();
    const summary = { runId: "r1", status: "completed", text: "hi", durationMs: 1, usage: { input_tokens: 5 } } as const;
    const hostsResult = { ...summary, usage: summary.usage as { input_tokens: number } };
    await t.finish({ type: "run.completed", result: hostsResult });
    hostsResult.usage.input_tokens = 999;
    const terminal = t.transcript().at(-1) as Extract<AgentEvent, { type: "run.completed" }>;
    expect(terminal.result.usage).toEqual({ input_tokens: 5 });
  });
});
