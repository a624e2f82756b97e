/**
 * The driver conformance kit: one suite every driver — built-in or third-party — runs with the
 * host's own test runner. It checks the core invariants through the public API: well-formed
 * descriptor, valid detached inspection, one terminal event last with contiguous `seq`,
 * cancellation that reclaims processes, a closed agent that never reaches the driver, and
 * inspect/prepare parity, and resources: every kind the descriptor does not deliver is refused
 * before the driver is called. Optional fixtures add the failure cases of DESIGN §14 (missing
 * executable, missing auth, unsupported method, malformed answer), the absence of side effects
 * of inspect/prepare, redaction canaries, and the delivery of every resource kind declared.
 */
import assert from "node:assert/strict";
import { createAgent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/options.js";
import { memoryThreadStore } from "../thread/stores/memory.js";
import type { Driver } from "../driver/types.js";
import { ExecutableNotFoundError } from "../errors/index.js";
import type { AgentEvent } from "../events/types.js";
import { PANEL_NAMES, type PanelName } from "../inspect/types.js";
import {
  added,
  assertNoSecret,
  assertRunShowsNoSecret,
  assertTimeline,
  collect,
  countingDriver,
  errorSurface,
  filesUnder,
  isCode,
  markerMcpServer,
  plantSentinels,
  SENTINEL,
  startThreadUnlessUnsupported,
  storedThreadSurface,
  withoutTimings,
} from "./conformance-probes.js";
import { registerResourceChecks } from "./conformance-resources.js";
import { registerCompactChecks } from "./conformance-compact.js";

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
  /**
   * A driver configured with an executable that does not exist: inspect observes the environment
   * `unavailable` (`executable_not_found`); a run rejects with `ExecutableNotFoundError` before delivery.
   */
  missingExecutable?: () => Driver;
  /**
   * A driver whose provider is not signed in: `panel` (default `auth`) is `unavailable` with
   * `auth_required`, and a run rejects with code `auth_required`. `panel: null` for a protocol
   * that reports missing authentication only once a session is created (ACP).
   */
  authRequired?: { makeDriver: () => Driver; panel?: PanelName | null };
  /** A provider that answers "method not found" for `panel`'s call: that panel is `unsupported` (`method_unsupported`). */
  unsupportedMethod?: { makeDriver: () => Driver; panel: PanelName };
  /** A provider that answers `panel`'s call with a malformed result: that panel is `unavailable` (`malformed_response`). */
  malformedInspect?: { makeDriver: () => Driver; panel: PanelName };
  /**
   * Run parity: with `model` as the agent's default, a run after `prepare()` uses it. `received`
   * reads what the provider process was actually given for the last run (e.g. from its log).
   */
  parity?: { model: string; received: () => Promise<string | undefined> | string | undefined };
  /**
   * Directories where the provider records conversations (session files, rollouts): inspect and
   * prepare add no file there; a run does (which proves the right directories are watched).
   */
  conversationDirs?: string[];
  /**
   * The driver hands the agent's MCP servers to its provider: inspect (and a prepare that keeps
   * no process) starts none of them; a run starts them (which proves the marker works).
   */
  mcpServers?: boolean;
  /**
   * A driver given `secret` through its env or config, whose provider echoes it (stderr, error
   * texts, answers): it never appears in an inspection, a prepare report, an event, a result, its
   * raw record or an error, nor, after the same prompts run on a thread, in what the thread store
   * (`agentOptions.threadStore`, else an in-memory one) keeps of it: record, history and the
   * provider state the driver saved. `prompts` are run besides `textRun` (e.g. one that fails).
   */
  canary?: { secret: string; makeDriver: () => Driver; prompts?: string[] };
  /**
   * What the provider's model received during the last run, as text (e.g. the scripted model
   * server's captured request bodies): one run with an instruction, a host tool and a skill — each
   * kind the descriptor delivers — must show each one's marker there. (Each kind the descriptor
   * does not deliver is always checked: refused before the driver is called.)
   */
  resources?: { received: () => Promise<string> | string };
  /**
   * `false` skips the run that compacts a thread after `textRun` (for a provider fixture that cannot
   * answer a compaction); a driver declaring `features.compact` is checked with it by default.
   */
  compact?: false;
}

/** Register the conformance suite for `makeDriver` with `fixtures.runner`. */
// long-function: registers the suite's test cases one after another; each case is short and stands alone
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
        // Mutate every object and array of the snapshot: nothing may reach a later snapshot.
        plantSentinels(first);
        const second = await agent.inspect();
        assert.ok(!JSON.stringify(second).includes(SENTINEL), "a later snapshot shares no object with an earlier one");
        const prepared = await agent.prepare();
        plantSentinels(prepared.inspection);
        const third = await agent.inspect();
        assert.ok(!JSON.stringify(third).includes(SENTINEL), "a later snapshot shares no object with a prepare report");
      } finally {
        await agent.close();
      }
    }, timeout);

    it("prepare() observes what inspect() observes on the same configuration", async () => {
      const agent = createAgent(makeDriver(), options);
      try {
        const inspected = await agent.inspect();
        const prepared = await agent.prepare();
        assert.deepEqual(withoutTimings(prepared.inspection), withoutTimings(inspected), "the inspections differ only in timestamps and durations");
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
          await assert.rejects(stream.result, isCode("run_cancelled"));
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
      const closed = isCode("agent_closed");
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

    registerOptionalChecks(makeDriver, fixtures, timeout);
    registerResourceChecks(makeDriver, fixtures, timeout);
    registerCompactChecks(makeDriver, fixtures, timeout);
  });
}

/** The checks that need a fixture only the driver's author can build. */
// long-function: registers the optional test cases one after another; each case is short and stands alone
function registerOptionalChecks(makeDriver: () => Driver, fixtures: ConformanceFixtures, timeout: number): void {
  const { it } = fixtures.runner;
  const options = fixtures.agentOptions ?? {};

  const { missingExecutable, authRequired, unsupportedMethod, malformedInspect, parity, conversationDirs, canary } = fixtures;

  if (missingExecutable) {
    it("reports a missing executable as an observation and refuses a run before delivery", async () => {
      const agent = createAgent(missingExecutable(), options);
      try {
        const inspection = await agent.inspect();
        assert.equal(inspection.environment.status, "unavailable", "environment is unavailable");
        assert.equal(inspection.environment.reason?.code, "executable_not_found");
        const stream = agent.stream(fixtures.textRun.prompt);
        const events = await collect(stream);
        assertTimeline(events, stream.runId);
        const terminal = events.at(-1)!;
        assert.ok(terminal.type === "run.failed" && terminal.error.code === "executable_not_found" && terminal.error.phase === "before_delivery", "run.failed: executable_not_found before delivery");
        const error = await stream.result.then(
          () => assert.fail("a run without an executable cannot complete"),
          (e: unknown) => e,
        );
        assert.ok(error instanceof ExecutableNotFoundError, "the run rejects with ExecutableNotFoundError");
        assert.equal(error.code, "executable_not_found");
        assert.equal(error.phase, "before_delivery");
        assert.equal(error.runId, stream.runId);
      } finally {
        await agent.close();
      }
    }, timeout);
  }

  if (authRequired) {
    const panel = authRequired.panel === undefined ? "auth" : authRequired.panel;
    it("reports missing authentication as auth_required, never as a login prompt", async () => {
      const agent = createAgent(authRequired.makeDriver(), options);
      try {
        if (panel !== null) {
          const inspection = await agent.inspect();
          assert.equal(inspection[panel].status, "unavailable", `${panel} is unavailable`);
          assert.equal(inspection[panel].reason?.code, "auth_required");
        }
        await assert.rejects(agent.run(fixtures.textRun.prompt), isCode("auth_required"), "a run rejects with auth_required");
      } finally {
        await agent.close();
      }
    }, timeout);
  }

  if (unsupportedMethod) {
    it("reports a method the provider does not know as unsupported", async () => {
      const agent = createAgent(unsupportedMethod.makeDriver(), options);
      try {
        const observation = (await agent.inspect())[unsupportedMethod.panel];
        assert.equal(observation.status, "unsupported", `${unsupportedMethod.panel} is unsupported`);
        assert.equal(observation.reason?.code, "method_unsupported");
        assert.equal(observation.value, undefined);
      } finally {
        await agent.close();
      }
    }, timeout);
  }

  if (malformedInspect) {
    it("reports a malformed provider answer as malformed_response", async () => {
      const agent = createAgent(malformedInspect.makeDriver(), options);
      try {
        const observation = (await agent.inspect())[malformedInspect.panel];
        assert.equal(observation.status, "unavailable", `${malformedInspect.panel} is unavailable`);
        assert.equal(observation.reason?.code, "malformed_response");
        assert.equal(observation.value, undefined);
      } finally {
        await agent.close();
      }
    }, timeout);
  }

  if (parity) {
    it("a run after prepare() uses the configured model", async () => {
      const agent = createAgent(makeDriver(), { ...options, defaults: { ...options.defaults, model: parity.model } });
      try {
        await agent.prepare();
        const stream = agent.stream(fixtures.textRun.prompt);
        const events = await collect(stream);
        await stream.result;
        const started = events[0]!;
        assert.ok(started.type === "run.started" && started.model === parity.model, "run.started names the configured model");
        assert.equal(await parity.received(), parity.model, "the provider received the configured model");
      } finally {
        await agent.close();
      }
    }, timeout);
  }

  if (conversationDirs) {
    it("inspect() and prepare() create no conversation; a run does", async () => {
      const before = await filesUnder(conversationDirs);
      const agent = createAgent(makeDriver(), options);
      try {
        await agent.inspect();
        await agent.prepare();
      } finally {
        await agent.close();
      }
      assert.deepEqual(added(before, await filesUnder(conversationDirs)), [], "inspect() and prepare() left no conversation file");
      const running = createAgent(makeDriver(), options);
      try {
        await running.run(fixtures.textRun.prompt);
      } finally {
        await running.close();
      }
      assert.ok(added(before, await filesUnder(conversationDirs)).length > 0, "a run records its conversation in the watched directories");
    }, timeout);
  }

  if (fixtures.mcpServers) {
    it("inspect() starts none of the agent's MCP servers; a run does", async () => {
      const marker = await markerMcpServer();
      const withMarker: AgentOptions = { ...options, mcp: [...(options.mcp ?? []), marker.server] };
      try {
        const agent = createAgent(makeDriver(), withMarker);
        try {
          await agent.inspect();
          assert.equal(marker.started(), false, "inspect() started an MCP server");
          // A kept standby is the process that will serve the run: its MCP servers are the run's.
          const report = await agent.prepare();
          if (report.process !== "ready") assert.equal(marker.started(), false, "a prepare() that kept no process started an MCP server");
        } finally {
          await agent.close();
        }
        const running = createAgent(makeDriver(), withMarker);
        try {
          // The marker is no MCP server: a driver that never runs without its servers fails the run.
          await running.run(fixtures.textRun.prompt).catch(() => undefined);
        } finally {
          await running.close();
        }
        assert.equal(marker.started(), true, "a run starts the agent's MCP servers");
      } finally {
        await marker.cleanup();
      }
    }, timeout);
  }

  if (canary) {
    it("never shows a secret from the driver's env or config", async () => {
      const { secret } = canary;
      // The thread store the runs keep their provider state in: the host's, else one the kit owns.
      const store = options.threadStore ?? memoryThreadStore();
      const agent = createAgent(canary.makeDriver(), { ...options, threadStore: store });
      try {
        assertNoSecret(secret, JSON.stringify(await agent.inspect()), "the inspection");
        assertNoSecret(secret, JSON.stringify(await agent.prepare()), "the prepare report");
        const prompts = [fixtures.textRun.prompt, ...(canary.prompts ?? [])];
        for (const prompt of prompts) await assertRunShowsNoSecret(secret, agent.stream(prompt), `"${prompt}"`);
        // Thread runs also keep what the driver saves as provider state (and the history) in the store.
        const thread = await startThreadUnlessUnsupported(agent);
        if (thread !== undefined) {
          for (const prompt of prompts) await assertRunShowsNoSecret(secret, thread.stream(prompt), `"${prompt}" on a thread`);
          assertNoSecret(secret, await storedThreadSurface(store, thread.id), "the thread store (the thread's record, history or stored provider state)");
        }
      } finally {
        await agent.close();
        if (options.threadStore === undefined) await store.close();
      }
    }, timeout);
  }
}
