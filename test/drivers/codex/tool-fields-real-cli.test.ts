/**
 * Normalized tool events on the real Codex app-server (scripted model server, no network): a
 * patch turn yields `file_change` with one unified diff per file naming it, a shell turn yields
 * `command` with its cwd and exit code. The fields observed are checked against (and, with
 * UPDATE_TOOL_FIELDS=1, recorded into) test/fixtures/tool-fields/codex.json, from which
 * docs/api.md's per-driver table is rendered.
 */
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codex } from "../../../src/drivers/codex/index.js";
import type { AgentEvent, FileChange } from "../../../src/events/types.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { ofType } from "../helpers.js";
import { expectToolFields } from "../tool-fields.js";

const PATCH = ["*** Begin Patch", "*** Add File: notes.txt", "+hello", "+world", "*** Update File: existing.txt", "@@", " one", "-two", "+TWO", "*** End Patch"].join("\n");

function driverFor(ctx: RealCliContext) {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const byName = (files: FileChange[] | undefined, name: string) => files?.find((f) => f.path.endsWith(`/${name}`));

describeRealCli("codex", () => {
  it("a patch turn yields file_change with a unified diff per file; a shell turn yields command, cwd and exit code", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "patch the files" }, reply: { toolCalls: [{ id: "call_patch", name: "exec_command", arguments: { cmd: `apply_patch <<'PATCH'\n${PATCH}\nPATCH` } }] } },
        { match: { toolResultFor: "call_patch" }, reply: { text: "Patched." } },
        // Output before a pause, so Codex streams a delta before the command ends.
        { match: { lastUserTextContains: "run the shell" }, reply: { toolCalls: [{ id: "call_sh", name: "exec_command", arguments: { cmd: "echo start; sleep 0.5; echo end; exit 3" } }] } },
        { match: { toolResultFor: "call_sh" }, reply: { text: "Ran." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      writeFileSync(join(ctx.workspace, "existing.txt"), "one\ntwo\nthree\n");
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace, defaults: { policy: { sandbox: "workspace-write", approval: "never" } } });
      try {
        const patch = await collect(agent.stream("Please patch the files"));
        const patchStarted = ofType(patch, "tool.started").find((e) => e.callId === "call_patch");
        expect(patchStarted).toMatchObject({ kind: "file_change", name: "fileChange" });
        const patchDone = ofType(patch, "tool.completed").find((e) => e.callId === "call_patch")!;
        expect(patchDone.status).toBe("completed");
        const added = byName(patchDone.files, "notes.txt")!;
        expect(added).toMatchObject({ change: "added", diff: expect.stringMatching(/^--- \/dev\/null\n\+\+\+ b\/.*\/notes\.txt\n@@ -0,0 \+1,2 @@\n\+hello\n\+world\n$/) });
        const modified = byName(patchDone.files, "existing.txt")!;
        expect(modified).toMatchObject({ change: "modified", diff: expect.stringMatching(/^--- a\/.*\/existing\.txt\n\+\+\+ b\/.*\/existing\.txt\n@@ .* @@\n one\n-two\n\+TWO\n three\n$/) });

        const shell = await collect(agent.stream("Now run the shell"));
        const started = ofType(shell, "tool.started").find((e) => e.callId === "call_sh")!;
        expect(started).toMatchObject({ kind: "command", name: "commandExecution", command: expect.stringContaining("echo start") });
        expect(realpathSync(started.cwd!)).toBe(realpathSync(ctx.workspace));
        const outputs = ofType(shell, "tool.updated").filter((e) => e.callId === "call_sh").map((e) => e.output ?? "");
        // Deltas are what Codex streamed: it may hold the first output back into its own tool result
        // (its exec yield window), so they end the whole output rather than always spell all of it.
        expect(outputs.length).toBeGreaterThan(0);
        expect("start\nend\n".endsWith(outputs.join(""))).toBe(true);
        expect(ofType(shell, "tool.completed").find((e) => e.callId === "call_sh")).toMatchObject({ status: "failed", exitCode: 3, output: "start\nend\n" });

        const all = [...patch, ...shell];
        for (const event of all.filter((e) => e.type.startsWith("tool."))) {
          expect(event).not.toHaveProperty("input");
          expect(event).not.toHaveProperty("diff");
        }
        await expectToolFields("codex", all);
      } finally {
        await agent.close();
      }
    });
  });
});
