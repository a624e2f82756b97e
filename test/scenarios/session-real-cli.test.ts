/**
 * Sessions on real CLIs against the scripted model server, as a demanding operator drives them
 * beyond the issue's own scenarios: an interrupt repeated while the turn unwinds, then the next
 * input on the same conversation (Codex); a follow-up while a turn is in flight — native on Pi, the
 * next run on Claude Code. A slow, dripping answer keeps a turn in flight while the test acts.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { createSession } from "../../src/session/index.js";
import type { Session, SessionEvent } from "../../src/session/types.js";
import { lastUserText, type ModelScript } from "../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { claudeDriver, codexDriver, piDriver } from "../real-cli/session-lane-drivers.js";
import { describeRealCli } from "../real-cli/helpers.js";

/** A slow answer that keeps the turn in flight, then the short answer to the prompt containing `next`. */
function slowThen(next: string): ModelScript {
  return {
    turns: [
      { match: { lastUserTextContains: "slow answer" }, reply: { text: "slow ".repeat(200), chunkSize: 5 }, fault: { dripMs: 50 } },
      { match: { lastUserTextContains: next }, reply: { text: `Answered ${next}.` } },
    ],
  };
}

async function withSession(driver: Driver, ctx: RealCliContext, fn: (session: Session) => Promise<void>, run?: Parameters<typeof createSession>[1]): Promise<void> {
  const agent = createAgent(driver, { workspace: ctx.workspace });
  const session = await createSession(agent, { idleSleepMs: 0, ...run });
  try {
    await fn(session);
  } finally {
    await session.close();
    await agent.close();
  }
}

function firstEvent(session: Session, test: (entry: SessionEvent) => boolean): Promise<SessionEvent> {
  return (async () => {
    for await (const entry of session.events()) if (test(entry)) return entry;
    throw new Error("the log ended first");
  })();
}

async function quiet(session: Session): Promise<void> {
  while (session.status().inFlight !== undefined || session.status().queued.length > 0 || session.state() === "running") await new Promise((resolve) => setTimeout(resolve, 20));
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

const TERMINALS = new Set(["run.completed", "run.failed", "run.cancelled"]);

function boundIds(entries: SessionEvent[]): string[] {
  return entries.flatMap(({ event }) => (event.type === "thread.bound" ? [event.providerSessionId] : []));
}

describeRealCli("codex", () => {
  it("interrupt repeated while the turn unwinds cancels it once; the next input continues the same conversation", async () => {
    await withRealCli("codex", slowThen("AGAIN"), async (ctx) => {
      await withSession(
        codexDriver(ctx),
        ctx,
        async (session) => {
          await session.submit("Give a slow answer");
          await firstEvent(session, (entry) => entry.event.type === "message.delta");
          expect(await Promise.all([session.interrupt(), session.interrupt(), session.interrupt()])).toEqual([true, true, true]);
          await quiet(session);
          await expect(session.interrupt()).resolves.toBe(false);
          await session.submit("Say it AGAIN");
          await quiet(session);
          const entries = await logged(session);
          const terminals = entries.filter(({ event }) => TERMINALS.has(event.type)).map(({ event }) => event.type);
          expect(terminals).toEqual(["run.cancelled", "run.completed"]);
          expect(new Set(boundIds(entries)).size).toBe(1);
          const last = ctx.server.requests.filter((r) => !r.auxiliary).at(-1)!;
          expect(lastUserText(last)).toContain("AGAIN");
          expect(JSON.stringify(last)).toContain("Give a slow answer");
        },
        { run: { policy: { sandbox: "read-only", approval: "never" } } },
      );
    });
  });
});

describeRealCli("pi", () => {
  it("followUp while a turn is in flight reaches Pi natively and is answered in the same run", async () => {
    await withRealCli("pi", slowThen("FOLLOW"), async (ctx) => {
      await withSession(piDriver(ctx), ctx, async (session) => {
        await session.submit("Give a slow answer");
        await firstEvent(session, (entry) => entry.event.type === "message.delta");
        await session.followUp("Then FOLLOW up");
        await quiet(session);
        const entries = await logged(session);
        const followUps = entries.flatMap(({ event }) => (event.type === "session.follow_up" ? [event.delivery] : []));
        expect(followUps).toEqual(["native"]);
        expect(entries.filter(({ event }) => event.type === "session.run_admitted")).toHaveLength(1);
        const requests = ctx.server.requests.filter((r) => !r.auxiliary && r.dialect === "chat");
        expect(requests.map((r) => lastUserText(r))).toEqual(["Give a slow answer", "Then FOLLOW up"]);
        expect(JSON.stringify(requests[1]!.messages)).toContain("slow slow");
      });
    });
  });
});

describeRealCli("claude", () => {
  it("followUp while a turn is in flight runs next on the same conversation, after the turn ends uncut", async () => {
    await withRealCli("claude", slowThen("FOLLOW"), async (ctx) => {
      await withSession(claudeDriver(ctx), ctx, async (session) => {
        await session.submit("Give a slow answer");
        await firstEvent(session, (entry) => entry.event.type === "message.delta");
        await session.followUp("Then FOLLOW up");
        await quiet(session);
        const entries = await logged(session);
        const followUps = entries.flatMap(({ event }) => (event.type === "session.follow_up" ? [event.delivery] : []));
        expect(followUps).toEqual(["next_run"]);
        const terminals = entries.filter(({ event }) => TERMINALS.has(event.type)).map(({ event }) => event.type);
        expect(terminals).toEqual(["run.completed", "run.completed"]);
        expect(new Set(boundIds(entries)).size).toBe(1);
        const last = ctx.server.requests.filter((r) => !r.auxiliary).at(-1)!;
        expect(lastUserText(last)).toContain("FOLLOW");
        expect(JSON.stringify(last.messages)).toContain("slow slow");
      });
    });
  });
});
