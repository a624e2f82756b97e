/**
 * A registered secret a command writes across two streamed `tool.updated` deltas: each delta is
 * redacted on its own, so core holds back the end of a call's output that could start a secret and
 * publishes it with the next delta, before the call's `tool.completed`, or when the run ends.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CheckedSink } from "../../src/agent/sink.js";
import type { Driver, EventSink, RunRequest, RunResponse } from "../../src/driver/types.js";
import { RunCancelledError } from "../../src/errors/index.js";
import { RunTimeline } from "../../src/events/timeline.js";
import type { AgentEvent, DriverEvent } from "../../src/events/types.js";
import { createAgent } from "../../src/index.js";
import { createRedactor, type Redactor } from "../../src/redact/redact.js";
import { fakeDriver } from "../../src/testing/index.js";

/** Of no recognisable shape: only its registration redacts it. */
const SECRET = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";
const OTHER = "qwertyuiopZXCV";

/** A driver that registers `SECRET` and runs one command whose output arrives in `chunks`. */
function splittingDriver(chunks: readonly string[], untilAborted = false): Driver {
  const base = fakeDriver({ script: { steps: [] } });
  const run = async (request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> => {
    request.registerSecret(SECRET);
    request.markDelivered();
    await sink.emit({ type: "tool.started", callId: "c1", kind: "command", title: "cat key" });
    for (const output of chunks) await sink.emit({ type: "tool.updated", callId: "c1", output });
    if (untilAborted) {
      await sink.emit({ type: "notice", level: "info", code: "fake_notice", message: "waiting" });
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      throw signal.reason;
    }
    await sink.emit({ type: "tool.completed", callId: "c1", status: "completed", exitCode: 0 });
    await sink.emit({ type: "message.completed", itemId: "m1", text: "done" });
    return { text: "done" };
  };
  return new Proxy(base, {
    get(target, key) {
      if (key === "run") return run;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const outputsOf = (events: readonly AgentEvent[]): string[] =>
  events.flatMap((event) => (event.type === "tool.updated" && event.output !== undefined ? [event.output] : []));

describe("a registered secret split across two tool output deltas", () => {
  it("appears in no published event, and the joined deltas are the redacted whole output", async () => {
    const chunks = ["export KEY=" + SECRET.slice(0, 9), SECRET.slice(9) + "\nok\n"];
    const agent = createAgent(splittingDriver(chunks));
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result;
    await agent.close();
    for (const event of events) {
      const text = JSON.stringify(event);
      expect(text).not.toContain(SECRET);
      // Nor a piece of it long enough to put back together.
      expect(text).not.toContain(SECRET.slice(0, 9));
      expect(text).not.toContain(SECRET.slice(9));
    }
    expect(outputsOf(events).join("")).toBe("export KEY=[REDACTED]\nok\n");
    // The tail is published before the call's closing.
    const types = events.map((event) => event.type);
    expect(types.lastIndexOf("tool.updated")).toBeLessThan(types.indexOf("tool.completed"));
  });
});

/** A sink over a fresh timeline, as a run builds it. */
function sinkWith(redactor: Redactor, stopping = () => false) {
  const timeline = new RunTimeline({ runId: "r1", bufferSize: 100_000, overflow: "block" });
  const sink = new CheckedSink({
    driverId: "fake",
    timeline,
    redactor: () => redactor,
    onViolation: (error) => {
      throw error;
    },
    observe: () => undefined,
    onTerminal: () => undefined,
    stopping,
  });
  return { timeline, sink };
}

async function emitAll(sink: CheckedSink, events: readonly DriverEvent[]): Promise<void> {
  for (const event of events) await sink.emit(event);
}

/** Every cut of `text` into pieces at the sorted indices `at`. */
function piecesOf(text: string, at: readonly number[]): string[] {
  const cuts = [...new Set(at.map((i) => i % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe("tool output redacted across deltas", () => {
  it("equals the whole output redacted, for any split, with no secret in any delta", async () => {
    // Filler that forms no secret-shaped token, so only the registered literals are redacted.
    const filler = fc.array(fc.constantFrom("a", "b", "c", "1", "2", " ", "\n", "Z", "q", "8"), { maxLength: 20 }).map((chars) => chars.join(""));
    const part = fc.oneof(filler, fc.constant(SECRET), fc.constant(OTHER), fc.constant(SECRET.slice(0, 5)));
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), async (parts, at) => {
        const whole = parts.join("");
        const redactor = createRedactor({ secrets: [SECRET, OTHER] });
        const { timeline, sink } = sinkWith(redactor);
        const deltas = piecesOf(whole, at);
        await emitAll(sink, [
          { type: "tool.started", callId: "c1", kind: "command", title: "t" },
          ...deltas.map((output): DriverEvent => ({ type: "tool.updated", callId: "c1", output })),
          { type: "tool.completed", callId: "c1", status: "completed" },
        ]);
        const published = outputsOf(timeline.transcript());
        expect(published.join("")).toBe(redactor.redactText(whole));
        for (const delta of published) {
          expect(delta).not.toContain(SECRET);
          expect(delta).not.toContain(OTHER);
        }
      }),
      { numRuns: 300, seed: 20261206 },
    );
  });

  it("costs nothing when no literal secret is registered: each delta is published as it came", async () => {
    const { timeline, sink } = sinkWith(createRedactor());
    await emitAll(sink, [
      { type: "tool.started", callId: "c1", kind: "command", title: "t" },
      { type: "tool.updated", callId: "c1", output: "ab" },
      { type: "tool.updated", callId: "c1", output: "cd" },
    ]);
    expect(outputsOf(timeline.transcript())).toEqual(["ab", "cd"]);
  });
});

describe("the held tail of a call's output", () => {
  it("is published before the call's tool.completed", async () => {
    const { timeline, sink } = sinkWith(createRedactor({ secrets: [SECRET] }));
    await emitAll(sink, [
      { type: "tool.started", callId: "c1", kind: "command", title: "t" },
      { type: "tool.updated", callId: "c1", output: "line one\n" + SECRET.slice(0, 6) },
      { type: "tool.updated", callId: "c1", output: SECRET.slice(6) + " end" },
      { type: "tool.completed", callId: "c1", status: "completed" },
    ]);
    const events = timeline.transcript();
    expect(outputsOf(events)).toEqual(["line one\n", "[REDACTED] end"]);
    expect(events.map((event) => event.type)).toEqual(["tool.started", "tool.updated", "tool.updated", "tool.completed"]);
  });

  it("is published when a cancelled run ends with the call still open", async () => {
    let stopping = false;
    const { timeline, sink } = sinkWith(createRedactor({ secrets: [SECRET] }), () => stopping);
    await emitAll(sink, [
      { type: "tool.started", callId: "c1", kind: "command", title: "t" },
      { type: "tool.updated", callId: "c1", output: "partial " + SECRET.slice(0, 3) },
      { type: "tool.updated", callId: "c1", output: SECRET.slice(3) + " and " + SECRET.slice(0, 3) },
    ]);
    expect(outputsOf(timeline.transcript())).toEqual(["partial "]);
    stopping = true;
    await sink.flushHeldOutput();
    expect(outputsOf(timeline.transcript())).toEqual(["partial ", "[REDACTED] and " + SECRET.slice(0, 3)]);
  });

  it("reaches the run's history on a cancelled run", async () => {
    const agent = createAgent(splittingDriver(["partial output, then " + SECRET.slice(0, 12), SECRET.slice(12) + " and the end"], true));
    const thread = await agent.startThread();
    const stream = thread.stream("go");
    for await (const event of stream) if (event.type === "notice") stream.cancel("enough");
    await expect(stream.result).rejects.toBeInstanceOf(RunCancelledError);
    const { turns } = await thread.history();
    await agent.close();
    const events = turns[0]?.events ?? [];
    expect(outputsOf(events).join("")).toBe("partial output, then [REDACTED] and the end");
  });
});
