/**
 * Native compaction and a missing saved conversation on the real stream-json CLIs against the
 * scripted model server (issue #18 item 10): `Thread.compact()` sends the CLI's own `/compact`
 * as one ordinary turn (the model server sees the CLI's summary request; the next turn carries
 * the summary), and resuming a conversation the CLI no longer has fails with
 * `provider_session_not_found` before any process starts (Claude Code would exit, CodeBuddy would hang).
 */
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { streamJsonLaneDriver } from "./lane.js";

const textOf = (request: CapturedRequest) =>
  request.messages.flatMap((m) => m.parts).map((p) => (p.type === "text" ? p.text : "")).join("\n");

const modelRequests = (ctx: RealCliContext) => ctx.server.requests.filter((r) => !r.auxiliary);

/**
 * Removes the CLI's transcript of `sessionId` (what a cleaned-up or moved config directory leaves);
 * `leaveEmpty`: an empty file in its place, as CodeBuddy's session store writes when a process
 * saves the session after its transcript was removed.
 */
async function removeTranscript(configDir: string, sessionId: string, leaveEmpty = false): Promise<number> {
  let removed = 0;
  const projects = join(configDir, "projects");
  for (const slug of await readdir(projects)) {
    for (const entry of await readdir(join(projects, slug))) {
      if (entry === `${sessionId}.jsonl`) {
        await rm(join(projects, slug, entry));
        if (leaveEmpty) await writeFile(join(projects, slug, entry), "");
        removed++;
      }
    }
  }
  return removed;
}

describeRealCli("claude", () => {
  it("compacts a thread with Claude Code's own /compact as one turn; the next turn carries the summary", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "MANGO" }, reply: { text: "Noted: mango." } },
        { match: { lastUserTextContains: "TEXT ONLY" }, reply: { text: "<summary>SUMMARY-9: the user named the fruit mango.</summary>" } },
        { match: { lastUserTextContains: "Which fruit" }, reply: { text: "It was mango." } },
      ],
    };
    await withRealCli("claude", script, async (ctx) => {
      const driver = await streamJsonLaneDriver("claude", ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const thread = await agent.startThread();
        const first = await thread.run("Remember the word MANGO");
        const stream = thread.compact();
        const events: AgentEvent[] = [];
        for await (const event of stream) events.push(event);
        const compacted = await stream.result;
        expect(events.filter((e) => e.type.startsWith("run.") && e.type !== "run.started").map((e) => e.type)).toEqual(["run.completed"]);
        expect(compacted.providerSessionId).toBe(first.providerSessionId);
        // The CLI asked the model for its summary of the conversation so far.
        expect(modelRequests(ctx)).toHaveLength(2);
        expect(textOf(modelRequests(ctx)[1]!)).toContain("Noted: mango.");
        expect(events.some((e) => e.type === "notice" && e.code === "context_compacted")).toBe(true);

        const after = await thread.run("Which fruit did I name?");
        expect(after.text).toBe("It was mango.");
        expect(textOf(modelRequests(ctx)[2]!)).toContain("SUMMARY-9");
      } finally {
        await agent.close();
      }
    });
  });
});

for (const cli of ["claude", "codebuddy"] as const) {
  describeRealCli(cli, () => {
    for (const leaveEmpty of [false, true]) {
      it(`reports a saved conversation the CLI no longer has as provider_session_not_found, before any process starts${leaveEmpty ? " (an empty transcript left in its place)" : ""}`, async () => {
        const script: RealCliScript = { turns: [{ reply: { text: "Hello." } }] };
        await withRealCli(cli, script, async (ctx) => {
          const driver = await streamJsonLaneDriver(cli, ctx);
          const agent = createAgent(driver, { workspace: ctx.workspace, threadWriterIdleMs: 0 });
          try {
            const thread = await agent.startThread();
            const first = await thread.run("hello");
            expect(await removeTranscript(ctx.configDir, first.providerSessionId!, leaveEmpty)).toBe(1);
            const started = driver.processes().started;
            const stream = thread.stream("again");
            const events: AgentEvent[] = [];
            for await (const event of stream) events.push(event);
            const error = await stream.result.then(() => undefined, (e: unknown) => e as { code?: string; phase?: string });
            expect(error).toMatchObject({ code: "provider_session_not_found", phase: "before_delivery" });
            expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_session_not_found" } });
            expect(driver.processes().started).toBe(started);
            expect(modelRequests(ctx)).toHaveLength(1);
          } finally {
            await agent.close();
          }
        });
      });
    }
  });
}
