/**
 * The driver conformance kit: one suite every driver — built-in or third-party — runs with the
 * host's own test runner. It checks the core invariants through the public API: well-formed
 * descriptor, valid detached inspection, one terminal event last with contiguous `seq`,
 * cancellation that reclaims processes, and a closed agent that never reaches the driver.
 */
import assert from "node:assert/strict";
import { createAgent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/options.js";
import type { Driver } from "../driver/types.js";
import { AdaptorError } from "../errors/index.js";
import type { AgentEvent } from "../events/types.js";
import { PANEL_NAMES } from "../inspect/types.js";

/** The `describe`/`it` pair of any runner (vitest, node:test, jest, mocha). */
export interface ConformanceRunner {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
}

export interface ConformanceFixtures {
  runner: ConformanceRunner;
  /** Agent options for every agent the suite creates (workspace, defaults, ...). */
  agentOptions?: AgentOptions;
  /** A prompt that completes with text; `expectText` (if given) must equal the result text. */
  textRun: { prompt: string; expectText?: string };
  /** A prompt whose run stays alive until cancelled (e.g. the model server drips slowly). */
  cancellableRun?: { prompt: string };
  /** Pids of provider processes the driver currently owns; empty after close and after a cancel. */
  livePids?: (driver: Driver) => number[];
  /** Per-test timeout in ms (default 60 000). */
  timeoutMs?: number;
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function assertTimeline(events: AgentEvent[], runId: string): void {
  assert.ok(events.length >= 2, "a run has at least run.started and a terminal event");
  assert.equal(events[0]!.type, "run.started", "the first event is run.started");
  events.forEach((event, index) => {
    assert.equal(event.seq, index, "seq starts at 0 and increases by one");
    assert.equal(event.runId, runId, "every event carries the run id");
  });
  const terminals = events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled");
  assert.equal(terminals.length, 1, "exactly one terminal event");
  assert.equal(terminals[0], events[events.length - 1], "the terminal event is last");
}

function countingDriver(driver: Driver): { driver: Driver; calls: Record<string, number> } {
  const calls: Record<string, number> = { inspect: 0, prepare: 0, run: 0 };
  const wrapped: Driver = {
    descriptor: () => driver.descriptor(),
    validateConfig: () => driver.validateConfig(),
    inspect: (request, signal) => (calls.inspect!++, driver.inspect(request, signal)),
    prepare: (request, signal) => (calls.prepare!++, driver.prepare(request, signal)),
    run: (request, sink, signal) => (calls.run!++, driver.run(request, sink, signal)),
    close: () => driver.close(),
  };
  if (driver.fingerprint) wrapped.fingerprint = () => driver.fingerprint!();
  return { driver: wrapped, calls };
}

/** Register the conformance suite for `makeDriver` with `fixtures.runner`. */
export function runDriverConformance(makeDriver: () => Driver, fixtures: ConformanceFixtures): void {
  const { describe, it } = fixtures.runner;
  const timeout = fixtures.timeoutMs ?? 60_000;
  const options = fixtures.agentOptions ?? {};

  describe("driver conformance", () => {
    it("has a well-formed static descriptor", async () => {
      const driver = makeDriver();
      try {
        const d = driver.descriptor();
        for (const field of ["id", "name", "transport"] as const) assert.equal(typeof d[field], "string", `descriptor.${field}`);
        for (const kind of ["image", "file", "audio"] as const) assert.ok(Array.isArray(d.inputs[kind]?.modes), `descriptor.inputs.${kind}.modes`);
        assert.deepEqual(driver.descriptor(), d, "the descriptor is static");
        assert.equal("models" in d, false, "a descriptor never holds a model catalogue");
      } finally {
        await driver.close();
      }
    }, timeout);

    it("inspects every panel truthfully and returns detached snapshots", async () => {
      const agent = createAgent(makeDriver(), options);
      try {
        const first = await agent.inspect();
        for (const panel of PANEL_NAMES) {
          const o = first[panel];
          assert.ok(["observed", "unavailable", "unsupported"].includes(o.status), `${panel}.status`);
          if (o.status === "observed") assert.ok(o.evidence.length > 0 && o.reason === undefined, `${panel}: observed with evidence, no reason`);
          else assert.ok(o.value === undefined && typeof o.reason?.code === "string", `${panel}: ${o.status} with a reason and no value`);
        }
        (first as { models: unknown }).models = "mutated by the host";
        const second = await agent.inspect();
        assert.notEqual(second.models, "mutated by the host", "a later snapshot is unaffected by host mutation");
      } finally {
        await agent.close();
      }
    }, timeout);

    it("streams one ordered timeline with exactly one terminal event, last", async () => {
      const agent = createAgent(makeDriver(), options);
      try {
        const stream = agent.stream(fixtures.textRun.prompt);
        const events = await collect(stream);
        assertTimeline(events, stream.runId);
        const result = await stream.result;
        assert.equal(events[events.length - 1]!.type, "run.completed");
        if (fixtures.textRun.expectText !== undefined) assert.equal(result.text, fixtures.textRun.expectText);
        assert.deepEqual(result.transcript().map((e) => e.type).at(-1), "run.completed");
      } finally {
        await agent.close();
      }
    }, timeout);

    if (fixtures.cancellableRun) {
      const cancellable = fixtures.cancellableRun;
      it("ends a cancelled run with run.cancelled and reclaims its process", async () => {
        const driver = makeDriver();
        const agent = createAgent(driver, options);
        try {
          const stream = agent.stream(cancellable.prompt);
          const events: AgentEvent[] = [];
          for await (const event of stream) {
            events.push(event);
            if (event.type === "run.started") stream.cancel("conformance cancel");
          }
          assertTimeline(events, stream.runId);
          assert.equal(events.at(-1)!.type, "run.cancelled");
          await assert.rejects(stream.result, (e: unknown) => AdaptorError.is(e) && e.code === "run_cancelled");
          if (fixtures.livePids) assert.deepEqual(fixtures.livePids(driver), [], "no provider process survives a cancelled run");
        } finally {
          await agent.close();
        }
      }, timeout);
    }

    it("rejects every verb after close() without calling the driver, and reclaims processes", async () => {
      const inner = makeDriver();
      const { driver, calls } = countingDriver(inner);
      const agent = createAgent(driver, options);
      await agent.close();
      const closed = (e: unknown) => AdaptorError.is(e) && e.code === "agent_closed";
      await assert.rejects(agent.inspect(), closed);
      await assert.rejects(agent.prepare(), closed);
      await assert.rejects(agent.run(fixtures.textRun.prompt), closed);
      assert.deepEqual(calls, { inspect: 0, prepare: 0, run: 0 }, "the driver was not called");
      if (fixtures.livePids) assert.deepEqual(fixtures.livePids(inner), [], "no provider process survives close()");
    }, timeout);

    it("reports a prepare() process state it can prove and reclaims it on close", async () => {
      const driver = makeDriver();
      const agent = createAgent(driver, options);
      try {
        const report = await agent.prepare();
        assert.ok(["unsupported", "transient", "ready"].includes(report.process));
        const result = await agent.run(fixtures.textRun.prompt);
        assert.equal(typeof result.text, "string");
      } finally {
        await agent.close();
      }
      if (fixtures.livePids) assert.deepEqual(fixtures.livePids(driver), [], "no provider process survives close()");
    }, timeout);
  });
}
