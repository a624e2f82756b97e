/**
 * Normalized tool events through the ACP driver on a real agent (codex-acp, which runs its tools
 * against the scripted model server without asking inside the workspace): a patch turn yields
 * `file_change` with a unified diff per file naming it, a shell turn yields `command` with cwd
 * and exit code. The fields observed are checked against (and, with UPDATE_TOOL_FIELDS=1,
 * recorded into) test/fixtures/tool-fields/acp-codex-acp.json for docs/api.md's table.
 */
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codexAcp } from "../../../src/drivers/acp/index.js";
import type { AgentEvent, FileChange } from "../../../src/events/types.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { ofType } from "../helpers.js";
import { expectToolFields } from "../tool-fields.js";

const PATCH = ["*** Begin Patch", "*** Add File: notes.txt", "+hello", "+world", "*** Update File: existing.txt", "@@", " one", "-two", "+TWO", "*** End Patch"].join("\n");

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const byName = (files: FileChange[] | undefined, name: string) => files?.find((f) => f.path.endsWith(`/${name}`));

describeRealCli("codex-acp", () => {
  it("a patch turn yields file_change with a unified diff per file; a shell turn yields command, cwd and exit code", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "patch the files" }, reply: { toolCalls: [{ id: "call_patch", name: "exec_command", arguments: { cmd: `apply_patch <<'PATCH'\n${PATCH}\nPATCH` } }] } },
        { match: { toolResultFor: "call_patch" }, reply: { text: "Patched." } },
        { match: { lastUserTextContains: "run the shell" }, reply: { toolCalls: [{ id: "call_sh", name: "exec_command", arguments: { cmd: "echo start; echo end; exit 3" } }] } },
        { match: { toolResultFor: "call_sh" }, reply: { text: "Ran." } },
      ],
    };
    await withRealCli("codex-acp", script, async (ctx) => {
      writeFileSync(join(ctx.workspace, "existing.txt"), "one\ntwo\nthree\n");
      const driver = codexAcp({ provider: { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const patch = await collect(agent.stream("Please patch the files"));
        expect(ofType(patch, "tool.started").find((e) => e.callId === "call_patch")).toMatchObject({ kind: "file_change" });
        const patchDone = ofType(patch, "tool.completed").find((e) => e.callId === "call_patch")!;
        expect(patchDone.status).toBe("completed");
        expect(byName(patchDone.files, "notes.txt")).toMatchObject({
          change: "added",
          diff: expect.stringMatching(/^--- \/dev\/null\n\+\+\+ b\/.*\/notes\.txt\n@@ -0,0 \+1,2 @@\n\+hello\n\+world\n$/),
        });
        expect(byName(patchDone.files, "existing.txt")).toMatchObject({
          change: "modified",
          diff: expect.stringMatching(/^--- a\/.*\/existing\.txt\n\+\+\+ b\/.*\/existing\.txt\n@@ .* @@\n one\n-two\n\+TWO\n three\n$/),
        });

        const shell = await collect(agent.stream("Now run the shell"));
        const started = ofType(shell, "tool.started").find((e) => e.callId === "call_sh")!;
        expect(started).toMatchObject({ kind: "command", command: expect.stringContaining("echo start; echo end; exit 3") });
        expect(realpathSync(started.cwd!)).toBe(realpathSync(ctx.workspace));
        expect(ofType(shell, "tool.completed").find((e) => e.callId === "call_sh")).toMatchObject({ status: "failed", exitCode: 3, output: expect.stringContaining("start\nend\n") });

        const all = [...patch, ...shell];
        for (const event of all.filter((e) => e.type.startsWith("tool."))) {
          expect(event).not.toHaveProperty("input");
          expect(event).not.toHaveProperty("diff");
        }
        await expectToolFields("acp:codex-acp", all);
      } finally {
        await agent.close();
      }
    });
  });
});
