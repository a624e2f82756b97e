import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError, createAgent, type AgentEvent, type CallOptions, type AgentOptions, type RunStream } from "../../src/index.js";
import { fakeDriver, type FakeStep } from "../../src/testing/index.js";

const DAY = 24 * 3_600_000;
const MARK = "the script reached its end";
const mark: FakeStep = { emit: { type: "notice", level: "info", code: "fake_notice", message: MARK } };
const delta: FakeStep = { emit: { type: "message.delta", itemId: "m1", text: "working" } };
const TERMINALS = new Set(["run.completed", "run.failed", "run.cancelled"]);

/** One tool call: started, then completed (unless `open`). */
function call(callId: string, command: string, open = false): FakeStep[] {
  const started: FakeStep = { emit: { type: "tool.started", callId, kind: "command", name: "bash", title: command, command, rawInput: { command } } };
  return open ? [started] : [started, { emit: { type: "tool.completed", callId, status: "completed", output: "" } }];
}

interface Outcome {
  events: AgentEvent[];
  code: string | undefined;
  terminals: number;
}

/**
 * Streams one run of `steps` (followed by the mark and a wait for abort). When `at(event, stream)`
 * returns, the run is cancelled unless a watchdog already ended it, so "not tripped" reads as
 * `run_cancelled`.
 */
async function runScript(
  steps: FakeStep[],
  options: { agent?: AgentOptions; call?: CallOptions; at?: (event: AgentEvent, stream: RunStream) => Promise<void> | void; until?: (event: AgentEvent) => boolean } = {},
): Promise<Outcome> {
  const agent = createAgent(fakeDriver({ script: { steps: [{ markDelivered: true }, ...steps, mark, { waitForAbort: true }] } }), options.agent);
  try {
    const stream = agent.stream("go", options.call);
    const events: AgentEvent[] = [];
    const until = options.until ?? ((event: AgentEvent) => event.type === "notice" && event.message === MARK);
    for await (const event of stream) {
      events.push(event);
      if (until(event)) {
        await options.at?.(event, stream);
        stream.cancel("the test saw what it needed");
      }
    }
    const code = await stream.result.then(
      () => undefined,
      (error: unknown) => (error as { code?: string }).code,
    );
    return { events, code, terminals: events.filter((event) => TERMINALS.has(event.type)).length };
  } finally {
    await agent.close();
  }
}

const advance = (ms: number) => async () => {
  await vi.advanceTimersByTimeAsync(ms);
};

function expectTrip(outcome: Outcome, code: string): void {
  expect(outcome.code).toBe(code);
  expect(outcome.terminals).toBe(1);
  expect(outcome.events.at(-1)).toMatchObject({ type: "run.failed", error: { code, phase: "after_delivery", retryable: false } });
}

function expectNoTrip(outcome: Outcome): void {
  expect(outcome.code).toBe("run_cancelled");
  expect(outcome.terminals).toBe(1);
  expect(outcome.events.at(-1)).toMatchObject({ type: "run.cancelled" });
}

describe("watchdogs (every driver, in core)", () => {
  describe("turn idle and hard cap", () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const fakeClock = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });

    it("idle trips: no event for idleMs fails the run with idle_timeout", async () => {
      fakeClock();
      expectTrip(await runScript([delta], { call: { watchdogs: { idleMs: 1_000 } }, at: advance(1_000) }), "idle_timeout");
    });

    it("idle does not trip before idleMs has passed since the last event", async () => {
      fakeClock();
      expectNoTrip(await runScript([delta], { call: { watchdogs: { idleMs: 1_000 } }, at: advance(999) }));
    });

    it("idle counts from the prompt's delivery: a launch that has not delivered it yet is not idle", async () => {
      fakeClock();
      const agent = createAgent(fakeDriver({ script: { steps: [mark, { waitForAbort: true }] } }), { defaults: { watchdogs: { idleMs: 1_000 } } });
      try {
        const stream = agent.stream("go");
        for await (const event of stream) {
          if (event.type === "notice" && event.message === MARK) {
            await vi.advanceTimersByTimeAsync(10_000);
            stream.cancel("not idle before delivery");
          }
        }
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
      } finally {
        await agent.close();
      }
    });

    it("idle does not count while the host leaves the event buffer full (it is not reading)", async () => {
      fakeClock();
      const steps: FakeStep[] = [{ markDelivered: true }, delta, delta, delta, delta, mark, { waitForAbort: true }];
      const agent = createAgent(fakeDriver({ script: { steps } }), { events: { bufferSize: 2 }, defaults: { watchdogs: { idleMs: 1_000 } } });
      try {
        const stream = agent.stream("go");
        // The host does not read for a long while: the driver waits on the full buffer.
        await vi.advanceTimersByTimeAsync(10_000);
        for await (const event of stream) {
          if (event.type === "notice" && event.message === MARK) stream.cancel("the host read everything");
        }
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
      } finally {
        await agent.close();
      }
    });

    it("the default idle limit is 10 minutes", async () => {
      fakeClock();
      expectNoTrip(await runScript([delta], { at: advance(10 * 60_000 - 1) }));
      expectTrip(await runScript([delta], { at: advance(10 * 60_000) }), "idle_timeout");
    });

    it("idle is suspended while an approval waits for the host, and runs again once it is answered", async () => {
      fakeClock();
      const approval: FakeStep = { approve: { requestId: "r1", kind: "command", summary: "make", options: [] } };
      const outcome = await runScript([approval], {
        call: { onApproval: "stream", watchdogs: { idleMs: 1_000 } },
        until: (event) => event.type === "approval.requested",
        at: async (_event, stream) => {
          await vi.advanceTimersByTimeAsync(10_000);
          stream.respond("r1", { decision: "allow" });
          // The answer is activity; then the provider is silent again for idleMs.
          await vi.advanceTimersByTimeAsync(1_000);
        },
      });
      expectTrip(outcome, "idle_timeout");
      // The trip came after the answer, not while the approval waited.
      const resolvedAt = outcome.events.findIndex((event) => event.type === "approval.resolved");
      expect(resolvedAt).toBeGreaterThan(0);
    });

    it("idle is suspended while a question waits for the host", async () => {
      fakeClock();
      const question: FakeStep = { ask: { requestId: "q1", questions: [{ id: "a", question: "which?" }] } };
      expectNoTrip(
        await runScript([question], {
          call: { onUserInput: "stream", watchdogs: { idleMs: 1_000 } },
          until: (event) => event.type === "question.requested",
          at: advance(10_000),
        }),
      );
    });

    it("idle is suspended while a tool call is open (started, not completed)", async () => {
      fakeClock();
      expectNoTrip(await runScript(call("c1", "make test", true), { call: { watchdogs: { idleMs: 1_000 } }, at: advance(10_000) }));
      expectTrip(await runScript(call("c1", "make test"), { call: { watchdogs: { idleMs: 1_000 } }, at: advance(1_000) }), "idle_timeout");
    });

    it("hard cap trips at hardCapMs", async () => {
      fakeClock();
      expectTrip(await runScript([delta], { call: { watchdogs: { hardCapMs: 5_000, idleMs: 0 } }, at: advance(5_000) }), "hard_cap");
      expectNoTrip(await runScript([delta], { call: { watchdogs: { hardCapMs: 5_000, idleMs: 0 } }, at: advance(4_999) }));
    });

    it("hard cap trips at hardCapMs while the idle watchdog checks in between", async () => {
      fakeClock();
      // An open tool call suspends the idle watchdog: it checks every 1.5 s, which must not move the hard cap.
      const watchdogs = { hardCapMs: 5_000, idleMs: 1_500 };
      expectTrip(await runScript(call("c1", "make test", true), { call: { watchdogs }, at: advance(5_000) }), "hard_cap");
      expectNoTrip(await runScript(call("c1", "make test", true), { call: { watchdogs }, at: advance(4_999) }));
    });

    it("hardCapMs 0 disables the hard cap (and idleMs 0 the idle watchdog)", async () => {
      fakeClock();
      expectNoTrip(await runScript([delta], { call: { watchdogs: { hardCapMs: 0, idleMs: 0 } }, at: advance(30 * DAY) }));
    });

    it("a fraction of a millisecond is rounded up: 0.5 is a 1 ms limit, not the 0 that disables one", async () => {
      fakeClock();
      expectTrip(await runScript([delta], { call: { watchdogs: { hardCapMs: 0.5, idleMs: 0 } }, at: advance(1) }), "hard_cap");
      expectTrip(await runScript([delta], { call: { watchdogs: { idleMs: 0.5, hardCapMs: 0 } }, at: advance(1) }), "idle_timeout");
      expectNoTrip(await runScript([delta], { call: { watchdogs: { hardCapMs: 1_000.5, idleMs: 0 } }, at: advance(1_000) }));
      expectTrip(await runScript([delta], { call: { watchdogs: { hardCapMs: 1_000.5, idleMs: 0 } }, at: advance(1_001) }), "hard_cap");
    });

    it("a negative hardCapMs selects the default of 6 hours", async () => {
      fakeClock();
      const watchdogs = { hardCapMs: -1, idleMs: 0 };
      expectNoTrip(await runScript([delta], { call: { watchdogs }, at: advance(6 * 3_600_000 - 1) }));
      expectTrip(await runScript([delta], { call: { watchdogs }, at: advance(6 * 3_600_000) }), "hard_cap");
      expectTrip(await runScript([delta], { call: { watchdogs: { idleMs: 0 } }, at: advance(6 * 3_600_000) }), "hard_cap");
    });

    it("a hardCapMs over 7 days is capped at 7 days", async () => {
      fakeClock();
      const watchdogs = { hardCapMs: 30 * DAY, idleMs: 0 };
      expectNoTrip(await runScript([delta], { call: { watchdogs }, at: advance(7 * DAY - 1) }));
      expectTrip(await runScript([delta], { call: { watchdogs }, at: advance(7 * DAY) }), "hard_cap");
    });

    it("construction defaults apply to agent.run(), and a call overrides them field by field", async () => {
      fakeClock();
      const agent = { defaults: { watchdogs: { idleMs: 1_000, hardCapMs: 0 } } };
      expectTrip(await runScript([delta], { agent, at: advance(1_000) }), "idle_timeout");
      expectNoTrip(await runScript([delta], { agent, call: { watchdogs: { idleMs: 5_000 } }, at: advance(4_000) }));
    });
  });

  describe("repeated identical tool calls", () => {
    const watchdogs = { repeatToolLimit: 3 };

    it("trips exactly at the limit", async () => {
      const outcome = await runScript([...call("c1", "ls"), ...call("c2", "ls"), ...call("c3", "ls")], { call: { watchdogs } });
      expectTrip(outcome, "repeat_tool_loop");
      // The third start tripped it; the stopping run relays no new item, so it is not published.
      expect(outcome.events.filter((event) => event.type === "tool.started")).toHaveLength(2);
      expect(outcome.events.filter((event) => event.type === "tool.completed")).toHaveLength(2);
    });

    it("does not trip before the limit", async () => {
      expectNoTrip(await runScript([...call("c1", "ls"), ...call("c2", "ls")], { call: { watchdogs } }));
    });

    it("updates and re-announcements of one call id do not count", async () => {
      const again: FakeStep = { emit: { type: "tool.started", callId: "c1", kind: "command", name: "bash", title: "ls", command: "ls", rawInput: { command: "ls" } } };
      const update: FakeStep = { emit: { type: "tool.updated", callId: "c1", output: "a\n" } };
      expectNoTrip(await runScript([...call("c1", "ls", true), again, update, again, { emit: { type: "tool.completed", callId: "c1", status: "completed" } }, ...call("c2", "ls")], { call: { watchdogs } }));
    });

    it("a different call resets the count", async () => {
      const steps = [...call("c1", "ls"), ...call("c2", "ls"), ...call("c3", "pwd"), ...call("c4", "ls"), ...call("c5", "ls")];
      expectNoTrip(await runScript(steps, { call: { watchdogs } }));
    });

    it("a different input of the same tool is a different call", async () => {
      const steps = [...call("c1", "ls"), ...call("c2", "ls -a"), ...call("c3", "ls")];
      expectNoTrip(await runScript(steps, { call: { watchdogs } }));
    });

    it("a new run resets the count", async () => {
      const agent = createAgent(fakeDriver({ script: { steps: [...call("c1", "ls"), ...call("c2", "ls")], text: "done" } }), { defaults: { watchdogs } });
      try {
        const thread = await agent.startThread();
        await expect(thread.run("one")).resolves.toMatchObject({ status: "completed" });
        await expect(thread.run("two")).resolves.toMatchObject({ status: "completed" });
        await expect(agent.run("three")).resolves.toMatchObject({ status: "completed" });
      } finally {
        await agent.close();
      }
    });

    it("the default limit is 50", async () => {
      const calls = (n: number) => Array.from({ length: n }, (_, i) => call(`c${i}`, "ls")).flat();
      expectNoTrip(await runScript(calls(49)));
      expectTrip(await runScript(calls(50)), "repeat_tool_loop");
    });

    it("repeatToolLimit 0 disables it", async () => {
      const calls = Array.from({ length: 60 }, (_, i) => call(`c${i}`, "ls")).flat();
      expectNoTrip(await runScript(calls, { call: { watchdogs: { repeatToolLimit: 0 } } }));
    });
  });

  describe("validation", () => {
    it.each([
      [{ idleMs: Number.NaN }],
      [{ hardCapMs: Number.POSITIVE_INFINITY }],
      [{ repeatToolLimit: 1.5 }],
      [{ idleMs: "1000" }],
      [{ idle: 1000 }],
    ])("%o is refused with a ConfigError, at construction and per call", (watchdogs) => {
      expect(() => createAgent(fakeDriver(), { defaults: { watchdogs: watchdogs as never } })).toThrow(ConfigError);
      const agent = createAgent(fakeDriver());
      expect(() => agent.stream("go", { watchdogs: watchdogs as never })).toThrow(ConfigError);
      void agent.close();
    });
  });
});
