/**
 * A file input delivered as a workspace reference is readable by the agent: its copy lives in a
 * run-owned directory outside the workspace, the client-side file bridge serves exactly that copy,
 * its content reaches the model, and nothing is left in the workspace after the run. Proven on the
 * real Gemini CLI (which reads a referenced file through the client's `fs/read_text_file` when
 * the client advertises it) against the scripted model server.
 */
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { gemini } from "../../../src/drivers/acp/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { input } from "../../../src/input/index.js";
import { withRealCli } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

const CONTENT = "The launch code word is pomegranate-7731.";

describeRealCli("gemini", () => {
  it("a workspace_reference file input reaches the model through the client's file bridge and leaves the workspace untouched", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "attached notes" }, reply: { text: "Read them." } }] };
    await withRealCli("gemini", script, async (ctx) => {
      const source = join(ctx.root, "notes.txt");
      await writeFile(source, CONTENT);
      const before = await readdir(ctx.workspace);
      const driver = gemini({
        provider: { baseUrl: ctx.server.url.replace(/\/+$/, ""), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model },
        env: ctx.env,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
      });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Summarize the attached notes", {
          inputs: [input.fromPath("file", source, { mediaType: "text/plain", requireMode: "workspace_reference" })],
          onApproval: async () => ({ decision: "allow" }),
        });
        const events: AgentEvent[] = [];
        for await (const e of stream) events.push(e);
        expect(events.at(-1)).toMatchObject({ type: "run.completed" });
        const sent = ctx.server.requests
          .filter((r) => r.dialect === ctx.spec.dialect && !r.auxiliary)
          .flatMap((r) => r.messages.flatMap((m) => m.parts))
          .map((p) => (p.type === "text" ? p.text : ""))
          .join("\n");
        expect(sent).toContain(CONTENT);
        // Gemini names the run's input copy in its permission request: events show a placeholder.
        const visible = JSON.stringify(events);
        expect(visible).toContain("<input:notes.txt>");
        expect(visible).not.toContain("agent-adaptor-inputs-");
      } finally {
        await agent.close();
      }
      expect(await readdir(ctx.workspace)).toEqual(before);
    });
  });
});
