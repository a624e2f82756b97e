/**
 * Native compaction and goals on the real `codex app-server` against the scripted model server
 * (issue #18 items 7 and 10): `Thread.compact()` sends Codex's compaction request as one ordinary
 * turn (the model server sees Codex's own summary request, the next turn carries the summary),
 * and a thread's goal goes through get/set/pause/resume/budget/clear on Codex's `thread/goal/*`.
 * With an active goal Codex starts turns by itself (on resume, and when a turn ends): the script
 * answers those requests whenever they come, and the runs show none of them.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codex } from "../../../src/drivers/codex/index.js";
import { ConfigError } from "../../../src/errors/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

function driverFor(ctx: RealCliContext) {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

const textOf = (request: CapturedRequest) =>
  request.messages.flatMap((m) => m.parts).map((p) => (p.type === "text" ? p.text : "")).join("\n");

/** What Codex asks the model when it goes on with an active goal by itself. */
const GOAL_CONTINUATION = "Continue working toward the active thread goal";

const modelRequests = (ctx: RealCliContext) => ctx.server.requests.filter((r) => r.dialect === "responses" && !r.auxiliary);

describeRealCli("codex", () => {
  it("compacts a thread natively as one turn: Codex's summary request, one terminal, the summary carried on", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "MANGO" }, reply: { text: "Noted: mango." } },
        { match: { lastUserTextContains: "CONTEXT CHECKPOINT COMPACTION" }, reply: { text: "SUMMARY-7: the user named the fruit mango." } },
        { match: { lastUserTextContains: "Which fruit" }, reply: { text: "It was mango." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace, defaults: { model: ctx.model } });
      try {
        const thread = await agent.startThread();
        const first = await thread.run("Remember the word MANGO");
        const stream = thread.compact();
        const events: AgentEvent[] = [];
        for await (const event of stream) events.push(event);
        const compacted = await stream.result;

        expect(events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled").map((e) => e.type)).toEqual(["run.completed"]);
        expect(events.at(-1)?.type).toBe("run.completed");
        expect(events.some((e) => e.type === "notice" && e.code === "context_compacted")).toBe(true);
        expect(compacted.providerSessionId).toBe(first.providerSessionId);
        // The model was asked for Codex's own summary, after the first turn's exchange.
        const summaryRequest = modelRequests(ctx)[1]!;
        expect(textOf(summaryRequest)).toContain("CONTEXT CHECKPOINT COMPACTION");
        expect(textOf(summaryRequest)).toContain("Noted: mango.");
        expect(modelRequests(ctx)).toHaveLength(2);

        const after = await thread.run("Which fruit did I name?");
        expect(after.text).toBe("It was mango.");
        expect(textOf(modelRequests(ctx)[2]!)).toContain("SUMMARY-7");
        const history = await thread.history();
        expect(history.turns.map((t) => t.status)).toEqual(["completed", "completed", "completed"]);
        expect(history.turns[1]!.prompt).toBe("");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });

  it("round-trips a thread's goal through Codex's thread/goal methods; an active goal leaves no warm writer behind", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "start" }, reply: { text: "Started." } },
        { match: { lastUserTextContains: "next step" }, reply: { text: "Working on the parser." } },
        { match: { lastUserTextContains: "status?" }, reply: { text: "Still on it." } },
      ],
      // A turn Codex starts by itself for the goal may or may not reach the model before the run
      // interrupts it (on resume) or stops its process (after the run's turn): answered whenever it does.
      auxiliary: { rules: [{ label: "goal continuation", match: { lastUserTextContains: GOAL_CONTINUATION }, reply: { text: "GOAL-WORK-OUTSIDE-THE-RUN" } }] },
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace, defaults: { model: ctx.model } });
      try {
        const fresh = await agent.startThread();
        const early = await fresh.goal();
        expect(early).toBeDefined();
        // No provider conversation yet: no goal to read, none to set.
        expect(await early!.get()).toBeUndefined();
        await expect(early!.set("Ship the parser")).rejects.toBeInstanceOf(ConfigError);

        const thread = await agent.startThread();
        await thread.run("start");
        expect(driver.processes().live).toHaveLength(1); // the thread's warm writer
        const goal = (await thread.goal())!;
        expect(await goal.get()).toBeUndefined();
        // A change retires the warm writer first (Codex allows one writer per thread).
        const set = await goal.set("Ship the parser", { tokenBudget: 5000, status: "paused" });
        expect(driver.processes().live).toEqual([]);
        expect(set).toMatchObject({ objective: "Ship the parser", status: "paused", tokenBudget: 5000, tokensUsed: 0 });
        expect(Date.parse(set.createdAt)).not.toBeNaN();
        expect(await goal.get()).toEqual(set);
        expect((await goal.resume()).status).toBe("active");
        expect((await goal.pause()).status).toBe("paused");
        expect((await goal.budget(null)).tokenBudget).toBeUndefined();
        expect((await goal.budget(1200)).tokenBudget).toBe(1200);
        expect(await goal.clear()).toBe(true);
        expect(await goal.get()).toBeUndefined();
        expect(await goal.clear()).toBe(false);
        await expect(goal.pause()).rejects.toThrow();
        // Nothing so far started a turn: the model saw only the one prompt.
        expect(modelRequests(ctx)).toHaveLength(1);

        await goal.set("Ship the parser");
        const working = thread.stream("next step");
        const events: AgentEvent[] = [];
        for await (const event of working) events.push(event);
        expect((await working.result).text).toBe("Working on the parser.");
        expect(events.some((e) => e.type === "notice" && e.code === "goal_updated")).toBe(true);
        // Only the run's own turn is the run's: nothing of a turn Codex started for the goal, one terminal.
        expect(JSON.stringify(events)).not.toContain("GOAL-WORK-OUTSIDE-THE-RUN");
        expect(events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled").map((e) => e.type)).toEqual(["run.completed"]);
        // Codex would go on by itself with an active goal: its process was stopped before the run ended, not kept warm.
        expect(driver.processes().live).toEqual([]);
        expect((await goal.get())?.status).toBe("active");
        const next = await thread.run("status?");
        expect(next.text).toBe("Still on it.");
        expect(next.transcript().find((e) => e.type === "thread.bound")?.provenance?.event).toBe("thread/resume");
        expect(JSON.stringify(next.transcript())).not.toContain("GOAL-WORK-OUTSIDE-THE-RUN");
        expect(driver.processes().live).toEqual([]);
        // Each prompt reached the model once, in order; requests of Codex's own goal turns are apart.
        expect(modelRequests(ctx).map((r) => r.matchedTurn)).toEqual([0, 1, 2]);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });
});
