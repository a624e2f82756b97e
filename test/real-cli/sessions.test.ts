/**
 * Sessions on real CLIs (issue #18 "Must show"), each against the scripted model server:
 * - Codex: `steer` reaches the running turn natively (`turn/steer`);
 * - Pi: `steer` reaches the running turn natively (Pi's `steer`: once the answer in flight ends,
 *   before the next model call of the same run);
 * - Claude Code: `steer` leads the next run; `interruptAndHold` then `resume({ mode: "steer" })`;
 *   `sleep()` releases the warm process and the next input resumes the conversation natively;
 *   a cost ceiling trips on the cost Claude Code reports.
 * A slow, dripping answer keeps a turn in flight while the test acts on it.
 */
import { expect, it } from "vitest";
import { createAgent, type Agent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { BudgetExhaustedError } from "../../src/errors/index.js";
import { createSession } from "../../src/session/index.js";
import type { Session, SessionEvent, SessionOptions } from "../../src/session/types.js";
import { lastUserText, type ModelScript } from "../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { claudeDriver, codexDriver, piDriver } from "./session-lane-drivers.js";
import { describeRealCli } from "./helpers.js";

/** A slow answer (dripped) that keeps the turn in flight, then the answer to the steer. */
const SLOW_THEN_STEERED: ModelScript = {
  turns: [
    { match: { lastUserTextContains: "slow answer" }, reply: { text: "slow ".repeat(200), chunkSize: 5 }, fault: { dripMs: 50 } },
    { match: { lastUserTextContains: "STEERED" }, reply: { text: "Steered answer." } },
  ],
};

async function withSession(driver: Driver, ctx: RealCliContext, options: SessionOptions, fn: (session: Session, agent: Agent) => Promise<void>): Promise<void> {
  const agent = createAgent(driver, { workspace: ctx.workspace });
  const session = await createSession(agent, { idleSleepMs: 0, ...options });
  try {
    await fn(session, agent);
  } finally {
    await session.close();
    await agent.close();
  }
}

/** Resolves with the first logged event matching `test` (from the start of the log). */
function firstEvent(session: Session, test: (entry: SessionEvent) => boolean): Promise<SessionEvent> {
  return (async () => {
    for await (const entry of session.events()) if (test(entry)) return entry;
    throw new Error("the log ended first");
  })();
}

function quiet(session: Session): Promise<void> {
  return (async () => {
    while (session.status().inFlight !== undefined || session.status().queued.length > 0 || session.state() === "running") await new Promise((resolve) => setTimeout(resolve, 20));
  })();
}

async function logged(session: Session): Promise<SessionEvent[]> {
  const last = session.status().lastSeq;
  const out: SessionEvent[] = [];
  for await (const entry of session.events()) {
    out.push(entry);
    if (entry.seq >= last) break;
  }
  return out;
}

function finalTexts(entries: SessionEvent[]): string[] {
  return entries.flatMap(({ event }) => (event.type === "run.completed" ? [event.result.text] : []));
}

describeRealCli("codex", () => {
  it("session steer reaches Codex's running turn natively (turn/steer)", async () => {
    await withRealCli("codex", SLOW_THEN_STEERED, async (ctx) => {
      await withSession(codexDriver(ctx), ctx, { run: { policy: { sandbox: "read-only", approval: "never" } } }, async (session) => {
        await session.submit("Give a slow answer");
        await firstEvent(session, (entry) => entry.event.type === "message.delta");
        await expect(session.steer("Change of plan: STEERED")).resolves.toBe("native");
        await quiet(session);
        const entries = await logged(session);
        expect(entries.filter((entry) => entry.event.type === "session.run_admitted")).toHaveLength(1);
        expect(finalTexts(entries)).toEqual(["Steered answer."]);
        expect(lastUserText(ctx.server.requests.filter((r) => !r.auxiliary).at(-1)!)).toContain("STEERED");
      });
    });
  });
});

describeRealCli("pi", () => {
  it("session steer reaches Pi's running turn natively (steer), answered in the same run", async () => {
    await withRealCli("pi", SLOW_THEN_STEERED, async (ctx) => {
      await withSession(piDriver(ctx), ctx, {}, async (session) => {
        await session.submit("Give a slow answer");
        await firstEvent(session, (entry) => entry.event.type === "message.delta");
        await expect(session.steer("Change of plan: STEERED")).resolves.toBe("native");
        await quiet(session);
        const entries = await logged(session);
        expect(entries.filter((entry) => entry.event.type === "session.run_admitted")).toHaveLength(1);
        expect(finalTexts(entries)).toEqual(["Steered answer."]);
        // The slow answer was not cut short: the steer followed it, in the same conversation.
        const requests = ctx.server.requests.filter((r) => !r.auxiliary && r.dialect === "chat");
        expect(requests.map((r) => lastUserText(r))).toEqual(["Give a slow answer", "Change of plan: STEERED"]);
        expect(JSON.stringify(requests[1]!.messages)).toContain("slow slow");
      });
    });
  });
});

describeRealCli("claude", () => {
  it("session steer on Claude Code leads the next run, which resumes the conversation", async () => {
    await withRealCli("claude", SLOW_THEN_STEERED, async (ctx) => {
      await withSession(claudeDriver(ctx), ctx, {}, async (session) => {
        await session.submit("Give a slow answer");
        await firstEvent(session, (entry) => entry.event.type === "message.delta");
        await expect(session.steer("Change of plan: STEERED")).resolves.toBe("next_run");
        await quiet(session);
        const entries = await logged(session);
        expect(entries.filter((entry) => entry.event.type === "session.run_admitted")).toHaveLength(2);
        expect(finalTexts(entries).at(-1)).toBe("Steered answer.");
        const bound = entries.flatMap(({ event }) => (event.type === "thread.bound" ? [event.providerSessionId] : []));
        expect(new Set(bound).size).toBe(1);
      });
    });
  });

  it("interruptAndHold cancels the turn and holds the queue; resume({ mode: 'steer' }) runs the steer first", async () => {
    await withRealCli("claude", SLOW_THEN_STEERED, async (ctx) => {
      await withSession(claudeDriver(ctx), ctx, {}, async (session) => {
        await session.submit("Give a slow answer");
        await firstEvent(session, (entry) => entry.event.type === "message.delta");
        await session.submit("and queue this");
        await expect(session.interruptAndHold("operator review")).resolves.toBe(true);
        await firstEvent(session, (entry) => entry.event.type === "run.cancelled");
        while (session.status().inFlight !== undefined) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(session.status().gate).toMatchObject({ open: false, by: "hold" });
        expect(session.status().queued).toHaveLength(1);
        await session.resume({ mode: "steer", message: "Change of plan: STEERED" });
        await quiet(session);
        const entries = await logged(session);
        expect(finalTexts(entries)).toEqual(["Steered answer."]);
        const admitted = entries.filter((entry) => entry.event.type === "session.run_admitted");
        expect(admitted).toHaveLength(2);
        const userTexts = ctx.server.requests.filter((r) => !r.auxiliary).map((r) => lastUserText(r));
        expect(userTexts.at(-1)).toMatch(/STEERED[\s\S]*and queue this/);
      });
    });
  });

  it("sleep releases Claude Code's warm process; the next input wakes the session on the same conversation", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "remember 42" }, reply: { text: "Noted." } },
        { match: { lastUserTextContains: "which number" }, reply: { text: "42." } },
      ],
    };
    await withRealCli("claude", script, async (ctx) => {
      await withSession(claudeDriver(ctx), ctx, {}, async (session) => {
        await session.submit("Please remember 42");
        await quiet(session);
        await session.sleep();
        expect(session.state()).toBe("sleeping");
        await session.submit("which number was it?");
        await quiet(session);
        expect(session.state()).toBe("idle");
        const entries = await logged(session);
        expect(finalTexts(entries)).toEqual(["Noted.", "42."]);
        const bound = entries.flatMap(({ event }) => (event.type === "thread.bound" ? [event.providerSessionId] : []));
        expect(bound).toHaveLength(2);
        expect(bound[1]).toBe(bound[0]);
        // Resumed natively: the CLI sent the earlier exchange with the new question.
        const last = ctx.server.requests.filter((r) => !r.auxiliary).at(-1)!;
        expect(JSON.stringify(last.messages)).toContain("remember 42");
      });
    });
  });

  it("a session cost ceiling trips on the cost Claude Code reports and refuses the next run", async () => {
    const script: ModelScript = {
      turns: [{ match: { lastUserTextContains: "expensive" }, reply: { text: "Done.", usage: { input_tokens: 2_000_000, output_tokens: 100_000 } } }],
    };
    await withRealCli("claude", script, async (ctx) => {
      await withSession(claudeDriver(ctx), ctx, { budget: { sessionUsd: 0.01 } }, async (session) => {
        await session.submit("Do something expensive");
        await quiet(session);
        const { guardrails } = session.status();
        expect(guardrails.spentUsd).toBeGreaterThan(0.01);
        expect(guardrails.tripped).toMatchObject({ ceiling: "sessionUsd" });
        await expect(session.submit("more")).rejects.toBeInstanceOf(BudgetExhaustedError);
      });
    });
  });
});
