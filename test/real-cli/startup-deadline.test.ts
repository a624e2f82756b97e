/**
 * Real-CLI lane: a provider pointed at a model endpoint it cannot reach (a closed port on
 * 127.0.0.1) retries with backoff for minutes; with `startupTimeoutMs` the run fails with a typed,
 * retryable `provider_unreachable` instead of hanging. The CLIs keep their default retries here.
 */
import { createServer } from "node:net";
import { expect, it } from "vitest";
import { createAgent, RunFailedError, type AgentEvent } from "../../src/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { Driver } from "../../src/driver/types.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { laneEnv } from "../drivers/real-lane.js";
import { describeRealCli } from "./helpers.js";

/** A port on 127.0.0.1 that nothing listens on: bound once by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function runAgainstClosedPort(ctx: RealCliContext, driver: Driver) {
  const agent = createAgent(driver, { workspace: ctx.workspace, startupTimeoutMs: 1_000, defaults: { model: ctx.model } });
  try {
    const stream = agent.stream("hello?");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const outcome = await stream.result.then(() => undefined, (error: unknown) => error);
    return { events, outcome };
  } finally {
    await agent.close();
  }
}

function expectUnreachable({ events, outcome }: { events: AgentEvent[]; outcome: unknown }, retryNotice: string): void {
  expect(events.some((event) => event.type === "notice" && event.code === retryNotice)).toBe(true);
  expect(outcome).toBeInstanceOf(RunFailedError);
  expect(outcome).toMatchObject({ code: "provider_unreachable", retryable: true, phase: "after_delivery" });
  expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_unreachable" } });
}

describeRealCli("codex", () => {
  it("a run whose model endpoint is unreachable fails with provider_unreachable after startupTimeoutMs", async () => {
    const port = await closedPort();
    await withRealCli("codex", { turns: [] }, async (ctx) => {
      const driver = codex({
        home: ctx.configDir,
        env: ctx.env,
        args: ["--disable", "plugins"],
        provider: { id: "unreachable", baseUrl: `http://127.0.0.1:${port}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV },
      });
      expectUnreachable(await runAgainstClosedPort(ctx, driver), "provider_retry");
    });
  });
});

describeRealCli("claude", () => {
  it("a run whose model endpoint is unreachable fails with provider_unreachable after startupTimeoutMs", async () => {
    const port = await closedPort();
    await withRealCli("claude", { turns: [] }, async (ctx) => {
      const driver = claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: `http://127.0.0.1:${port}`, apiKeyEnv: "LANE_KEY" },
        // The lane turns retries off; here the CLI keeps its own default.
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "CLAUDE_CODE_MAX_RETRIES"]), LANE_KEY: "sk-lane-key-0123456789" },
      });
      expectUnreachable(await runAgainstClosedPort(ctx, driver), "api_retry");
    });
  });
});
