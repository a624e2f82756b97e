/**
 * Scheduling "a cancel right after the provider reported completion" without timing: the driver
 * is wrapped so the test learns the moment its `run()` announces `run.completed` through the sink
 * (core records it then and publishes it only once `run()` settles), and cancels from there.
 */
import { expect } from "vitest";
import type { Agent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import type { AgentEvent, Result } from "../../src/events/types.js";

/** How the late cancel arrives: the stream's `cancel()`, the caller's signal, `break` out of the loop, or `agent.close()`. */
export type LateCancel = "cancel" | "signal" | "break" | "close";
export const LATE_CANCELS: readonly LateCancel[] = ["cancel", "signal", "break", "close"];

/** `driver` with `hook` called right after its run announced `run.completed`. */
export function onCompletionAnnounced(driver: Driver, hook: () => void): Driver {
  const run: Driver["run"] = (request, sink, signal) =>
    driver.run(
      request,
      {
        emit: (event) => {
          const accepted = sink.emit(event);
          if (event.type === "run.completed") hook();
          return accepted;
        },
      },
      signal,
    );
  return new Proxy(driver, {
    get(target, key) {
      if (key === "run") return run;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export interface LateCancelOutcome {
  /** Every event the consumer read (up to the `break` for that kind). */
  events: AgentEvent[];
  result: Promise<Result>;
  /** Whether the driver announced completion before the cancel was sent. */
  announcedFirst: boolean;
}

/**
 * Streams `prompt` on an agent built by `build` around the wrapped driver and sends the late
 * cancel of `kind` once the driver announced completion. The consumer keeps draining for every
 * kind but `break`, which leaves the loop at a `message.completed` once completion was announced.
 */
export async function streamWithLateCancel(
  driver: Driver,
  build: (driver: Driver) => Agent,
  prompt: string,
  kind: LateCancel,
): Promise<LateCancelOutcome> {
  let announcedFirst = false;
  let markAnnounced!: () => void;
  const announced = new Promise<void>((resolve) => (markAnnounced = resolve));
  const caller = new AbortController();
  let agent!: Agent;
  let stream!: ReturnType<Agent["stream"]>;
  const wrapped = onCompletionAnnounced(driver, () => {
    announcedFirst = true;
    markAnnounced();
    if (kind === "cancel") stream.cancel("too late");
    else if (kind === "signal") caller.abort(new Error("too late"));
    else if (kind === "close") void agent.close();
  });
  agent = build(wrapped);
  stream = agent.stream(prompt, { signal: caller.signal });
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (kind === "break" && event.type === "message.completed") {
      // The consumer has the answer; it leaves once the driver has announced completion too.
      await Promise.race([announced, stream.result.then(() => undefined, () => undefined)]);
      if (announcedFirst) break;
    }
  }
  return { events, result: stream.result, announcedFirst };
}

/** The run stayed completed with `text`: terminal `run.completed` (unless the consumer left), a resolved result. */
export async function expectCompletedDespiteLateCancel(outcome: LateCancelOutcome, kind: LateCancel, text: string | RegExp): Promise<void> {
  expect(outcome.announcedFirst).toBe(true);
  if (kind !== "break") {
    expect(outcome.events.filter((e) => e.type.startsWith("run.") && e.type !== "run.started").map((e) => e.type)).toEqual(["run.completed"]);
    expect(outcome.events.at(-1)?.type).toBe("run.completed");
  }
  const result = await outcome.result;
  expect(result.status).toBe("completed");
  if (typeof text === "string") expect(result.text).toBe(text);
  else expect(result.text).toMatch(text);
}

/** Every item that started (deltas or tool.started) has its closing event before the terminal. */
export function expectEveryItemClosed(events: readonly AgentEvent[]): void {
  const terminal = events.findIndex((e) => e.type === "run.completed" || e.type === "run.cancelled" || e.type === "run.failed");
  const before = terminal < 0 ? events : events.slice(0, terminal);
  for (const [delta, completed] of [
    ["message.delta", "message.completed"],
    ["reasoning.delta", "reasoning.completed"],
  ] as const) {
    const open = new Set(before.filter((e) => e.type === delta).map((e) => (e as { itemId: string }).itemId));
    const closed = new Set(before.filter((e) => e.type === completed).map((e) => (e as { itemId: string }).itemId));
    expect([...open].filter((id) => !closed.has(id))).toEqual([]);
  }
  const started = before.filter((e) => e.type === "tool.started").map((e) => (e as { callId: string }).callId);
  const finished = new Set(before.filter((e) => e.type === "tool.completed").map((e) => (e as { callId: string }).callId));
  expect(started.filter((id) => !finished.has(id))).toEqual([]);
}
