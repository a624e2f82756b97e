/**
 * Cost and token ceilings (issue #18 item 6) from provider-reported usage only, one named test per
 * rule: a run past its ceiling is cancelled; a tripped ceiling refuses new runs with
 * `BudgetExhaustedError` until `addBudget` / `resetRunCeiling`; spend is never reset; the
 * guardrails survive a reopen.
 */
import { afterEach, describe, expect, it } from "vitest";
import { BudgetExhaustedError, ConfigError, createAgent, memorySessionStore, type Agent } from "../../src/index.js";
import { createSession, openSession } from "../../src/session/index.js";
import type { Session, SessionOptions } from "../../src/session/types.js";
import { heldDriver, logOf, noticesOf, until, type HeldDriver } from "./harness.js";

let agent: Agent | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  await agent?.close();
  session = agent = undefined;
});

async function start(driver: HeldDriver, options: SessionOptions): Promise<Session> {
  agent = createAgent(driver);
  session = await createSession(agent, options);
  return session;
}

describe("session ceilings", () => {
  it("a run whose reported cost crosses runUsd is cancelled, the run ceiling trips, and resetRunCeiling lets the next run start", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { runUsd: 0.5 } });
    await s.submit("expensive");
    const run = await driver.nextRun();
    await run.emit({ type: "usage.observed", usage: { cost_usd: 0.2 } });
    await run.emit({ type: "usage.observed", usage: { cost_usd: 0.7 } });
    await run.ended;
    expect(run.cancelled).toBe(true);
    await until(() => s.state() === "idle");
    const log = await logOf(s);
    const cancelled = log.find((entry) => entry.event.type === "run.cancelled")!.event;
    expect(cancelled).toMatchObject({ type: "run.cancelled", reason: expect.stringContaining("runUsd") });
    expect(s.status().guardrails).toMatchObject({ spentUsd: 0.7, tripped: { ceiling: "runUsd", runId: run.runId } });
    await expect(s.submit("more")).rejects.toBeInstanceOf(BudgetExhaustedError);
    await expect(s.submit("more")).rejects.toMatchObject({ code: "budget_exhausted", ceiling: "runUsd" });
    await s.resetRunCeiling();
    await s.submit("more");
    (await driver.nextRun()).finish({ usage: { cost_usd: 0.1 } });
    await until(() => s.state() === "idle" && driver.runs.length === 2);
    await until(() => s.status().guardrails.spentUsd > 0.7);
    expect(s.status().guardrails.spentUsd).toBeCloseTo(0.8);
    expect(s.status().guardrails.tripped).toBeUndefined();
  });

  it("spend reaching sessionUsd refuses new runs with BudgetExhaustedError, and addBudget raises the ceiling", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 1 } });
    await s.submit("a");
    (await driver.nextRun()).finish({ usage: { cost_usd: 0.6 } });
    await until(() => s.state() === "idle");
    await s.submit("b");
    (await driver.nextRun()).finish({ usage: { cost_usd: 0.4 } });
    await until(() => s.status().guardrails.tripped !== undefined);
    expect(s.status().guardrails).toMatchObject({ spentUsd: 1, tripped: { ceiling: "sessionUsd" } });
    await expect(s.submit("c")).rejects.toMatchObject({ code: "budget_exhausted", ceiling: "sessionUsd" });
    await expect(s.steer("c")).rejects.toBeInstanceOf(BudgetExhaustedError);
    // Context never causes a run, so it is still accepted.
    await s.submit("note", { wake: false });
    await expect(s.addBudget(0)).rejects.toBeInstanceOf(ConfigError);
    await expect(s.addBudget(-1)).rejects.toBeInstanceOf(ConfigError);
    await s.addBudget(2);
    expect(s.status().guardrails).toMatchObject({ spentUsd: 1, budget: { sessionUsd: 3 } });
    expect(s.status().guardrails.tripped).toBeUndefined();
    await s.submit("c");
    const run = await driver.nextRun();
    expect(run.prompt).toBe("note\n\nc");
    run.finish();
  });

  it("a run that would take the session past sessionUsd is cancelled as soon as its provider reports so", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 1 } });
    await s.submit("a");
    const run = await driver.nextRun();
    await run.emit({ type: "usage.observed", usage: { cost_usd: 1.5 } });
    await run.ended;
    expect(run.cancelled).toBe(true);
    await until(() => s.status().guardrails.tripped !== undefined);
    expect(s.status().guardrails.tripped?.ceiling).toBe("sessionUsd");
  });

  it("token ceilings count the reported input and output tokens", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionTokens: 100 } });
    await s.submit("a");
    (await driver.nextRun()).finish({ usage: { input_tokens: 60, output_tokens: 50, cached_input_tokens: 1000 } });
    await until(() => s.status().guardrails.tripped !== undefined);
    expect(s.status().guardrails).toMatchObject({ spentTokens: 110, tripped: { ceiling: "sessionTokens" } });
    await expect(s.addBudget(1)).rejects.toBeInstanceOf(ConfigError); // no cost ceiling to raise
    await s.addBudget({ tokens: 100 });
    expect(s.status().guardrails.tripped).toBeUndefined();
  });

  it("a provider that reports no cost never trips a cost ceiling (no price tables)", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 0.01, runUsd: 0.01 } });
    await s.submit("a");
    (await driver.nextRun()).finish({ usage: { input_tokens: 100000, output_tokens: 100000 } });
    await until(() => s.state() === "idle");
    expect(s.status().guardrails).toMatchObject({ spentUsd: 0, spentTokens: 200000 });
    expect(s.status().guardrails.tripped).toBeUndefined();
  });

  it("spend is never reset: not by addBudget, resetRunCeiling, clear or a reopen, and the guardrails are durable", async () => {
    const driver = heldDriver();
    const store = memorySessionStore();
    agent = createAgent(driver);
    const first = await createSession(agent, { id: "budget-durable", store, budget: { sessionUsd: 1, runUsd: 0.2 } });
    await first.submit("a");
    (await driver.nextRun()).finish({ usage: { cost_usd: 0.3 } });
    await until(() => first.status().guardrails.tripped !== undefined);
    await first.addBudget(1);
    await first.resetRunCeiling();
    await first.clear();
    expect(first.status().guardrails).toMatchObject({ spentUsd: 0.3, budget: { sessionUsd: 2, runUsd: 0.2 } });
    await first.close();
    session = await openSession(agent, "budget-durable", { store });
    expect(session.status().guardrails).toEqual(first.status().guardrails);
    expect(noticesOf(await logOf(session), "session.budget").length).toBeGreaterThan(0);
  });

  it("where the provider reports only its running cost (cumulative_cost_usd), a run costs that total's growth", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 0.45 } });
    await s.submit("a");
    (await driver.nextRun()).finish({ usage: { cumulative_cost_usd: 0.3 } });
    await until(() => s.state() === "idle" && s.status().guardrails.spentUsd > 0);
    expect(s.status().guardrails.spentUsd).toBeCloseTo(0.3);
    await s.submit("b");
    (await driver.nextRun()).finish({ usage: { cumulative_cost_usd: 0.5 } });
    await until(() => s.status().guardrails.tripped !== undefined);
    expect(s.status().guardrails.spentUsd).toBeCloseTo(0.5);
    expect(s.status().guardrails.tripped?.ceiling).toBe("sessionUsd");
  });

  it("invalid ceilings are refused at creation", async () => {
    agent = createAgent(heldDriver());
    await expect(createSession(agent, { budget: { sessionUsd: -1 } })).rejects.toBeInstanceOf(ConfigError);
    await expect(createSession(agent, { budget: { runUsd: Number.NaN } })).rejects.toBeInstanceOf(ConfigError);
  });
});
