/**
 * The conformance checks of native compaction (`descriptor().features.compact`): the flag holds
 * an allowed value; a driver without compaction is refused by `Thread.compact()` at once, before
 * anything runs; a driver declaring it compacts a thread after a turn as one run with one terminal
 * (`"native"`: it completes; `"advertised"`: it completes, or is refused with
 * `feature_unsupported` before delivery when the provider does not advertise it now).
 */
import assert from "node:assert/strict";
import { createAgent } from "../agent/agent.js";
import type { Driver } from "../driver/types.js";
import { FeatureUnsupportedError } from "../errors/index.js";
import type { AgentEvent } from "../events/types.js";
import type { AgentOptions } from "../agent/options.js";

/** What these checks read of the suite's fixtures (`ConformanceFixtures`). */
export interface CompactFixtures {
  runner: { it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown };
  agentOptions?: AgentOptions;
  textRun: { prompt: string };
  compact?: false;
}

const TERMINALS = new Set(["run.completed", "run.failed", "run.cancelled"]);

export function registerCompactChecks(makeDriver: () => Driver, fixtures: CompactFixtures, timeout: number): void {
  const { it } = fixtures.runner;
  const options = fixtures.agentOptions ?? {};

  it("declares compaction with an allowed value; without it, Thread.compact() is refused at once", async () => {
    const driver = makeDriver();
    const agent = createAgent(driver, options);
    try {
      const support = driver.descriptor().features.compact;
      assert.ok(support === undefined || ["native", "advertised", "unsupported"].includes(support), `features.compact is native, advertised or unsupported (${String(support)})`);
      if (support === "native" || support === "advertised") return;
      const thread = await agent.startThread();
      assert.throws(() => thread.compact(), (error: unknown) => error instanceof FeatureUnsupportedError && error.feature === "compact", "compact() throws FeatureUnsupportedError (compact)");
    } finally {
      await agent.close();
    }
  }, timeout);

  if (fixtures.compact === false) return;
  it("compacts a thread natively after a turn: one run, one terminal", async () => {
    const driver = makeDriver();
    const support = driver.descriptor().features.compact;
    if (support !== "native" && support !== "advertised") {
      await driver.close();
      return;
    }
    const agent = createAgent(driver, options);
    try {
      const thread = await agent.startThread();
      const first = await thread.run(fixtures.textRun.prompt);
      const stream = thread.compact();
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const terminals = events.filter((e) => TERMINALS.has(e.type));
      assert.equal(terminals.length, 1, "exactly one terminal");
      assert.equal(events.at(-1), terminals[0], "the terminal comes last");
      const outcome = await stream.result.then((result) => ({ result }), (error: unknown) => ({ error }));
      if ("result" in outcome) {
        assert.equal(outcome.result.providerSessionId, first.providerSessionId, "the compaction ran on the thread's conversation");
        return;
      }
      assert.equal(support, "advertised", `a driver declaring native compaction completes it (${String(outcome.error)})`);
      const terminal = terminals[0]!;
      assert.ok(terminal.type === "run.failed" && terminal.error.code === "feature_unsupported" && terminal.error.phase === "before_delivery", "a compaction the provider does not advertise is refused before delivery");
    } finally {
      await agent.close();
    }
  }, timeout);
}
