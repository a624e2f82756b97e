/**
 * Normalized tool events through the ACP driver on real agents (scripted model server): a
 * file-writing turn yields `file_change` with a unified diff per file naming it; a shell turn
 * yields `command` with cwd and exit code where the agent reports them (codex-acp; Gemini CLI and
 * claude-agent-acp report less, and the table says so). The fields observed are checked against
 * (and, with UPDATE_TOOL_FIELDS=1, recorded into) test/fixtures/tool-fields/acp-<agent>.json for
 * docs/api.md's per-driver table.
 */
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claudeAcp, codexAcp, gemini, type AcpDriver } from "../../../src/drivers/acp/index.js";
import type { AgentEvent, FileChange } from "../../../src/events/types.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext, type RealCliName, type RealCliScript } from "../../../src/testing/real-cli/index.js";
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

type Call = { name: string; arguments: Record<string, unknown> };

interface Case {
  cli: RealCliName;
  driver(ctx: RealCliContext): AcpDriver;
  /** The agent's own tools: the calls adding notes.txt and changing existing.txt, one running a shell command. */
  writes(workspace: string): Call[];
  shell: Call;
  /** What the agent reports of the shell command. */
  reportsCommand: boolean;
}

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");
const SHELL = "echo start; echo end; exit 3";

const cases: Case[] = [
  {
    cli: "codex-acp",
    // Codex's shell tool, not its unified exec (`exec_command`): unified exec reports a command's
    // end from a background watcher while the turn goes on, so on a loaded machine the end can
    // carry an empty transcript (the model's copy of the output is read separately and is whole)
    // or come after the turn ended, the call then closing as cancelled. The shell tool reports
    // the end, with the whole output, before the model sees the result.
    driver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env, args: ["-c", "features.unified_exec=false"] }),
    writes: () => [{ name: "shell_command", arguments: { command: `apply_patch <<'PATCH'\n${PATCH}\nPATCH` } }],
    shell: { name: "shell_command", arguments: { command: SHELL } },
    reportsCommand: true,
  },
  {
    cli: "gemini",
    driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    writes: (ws) => [
      { name: "write_file", arguments: { file_path: join(ws, "notes.txt"), content: "hello\nworld\n" } },
      { name: "replace", arguments: { file_path: join(ws, "existing.txt"), old_string: "two", new_string: "TWO", instruction: "change two" } },
    ],
    shell: { name: "run_shell_command", arguments: { command: SHELL, description: "fail on purpose" } },
    reportsCommand: false,
  },
  {
    cli: "claude-agent-acp",
    driver: (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }),
    writes: (ws) => [
      { name: "Write", arguments: { file_path: join(ws, "notes.txt"), content: "hello\nworld\n" } },
      // Claude Code edits only a file it has read.
      { name: "Read", arguments: { file_path: join(ws, "existing.txt") } },
      { name: "Edit", arguments: { file_path: join(ws, "existing.txt"), old_string: "two", new_string: "TWO" } },
    ],
    shell: { name: "Bash", arguments: { command: SHELL, description: "fail on purpose" } },
    reportsCommand: false,
  },
];

/** The write calls chained one after another, then the shell call. */
function scriptFor(c: Case, workspace: string): RealCliScript {
  const writes = c.writes(workspace);
  return {
    turns: [
      ...writes.map((call, i) => ({ match: i === 0 ? { lastUserTextContains: "write the files" } : { toolResultFor: `call_w${i - 1}` }, reply: { toolCalls: [{ id: `call_w${i}`, ...call }] } })),
      { match: { toolResultFor: `call_w${writes.length - 1}` }, reply: { text: "Written." } },
      { match: { lastUserTextContains: "run the shell" }, reply: { toolCalls: [{ id: "call_sh", ...c.shell }] } },
      { match: { toolResultFor: "call_sh" }, reply: { text: "Ran." } },
    ],
  };
}

for (const c of cases) {
  describeRealCli(c.cli, () => {
    it("a file-writing turn yields file_change with a unified diff per file; a shell turn yields command and exit code where reported", async () => {
      await withRealCli(c.cli, (dirs) => scriptFor(c, dirs.workspace), async (ctx) => {
        writeFileSync(join(ctx.workspace, "existing.txt"), "one\ntwo\nthree\n");
        const agent = createAgent(c.driver(ctx), { workspace: ctx.workspace, defaults: { onApproval: async () => ({ decision: "allow" }) } });
        try {
          const writes = await collect(agent.stream("Please write the files"));
          const files = ofType(writes, "tool.completed").flatMap((e) => e.files ?? []);
          expect(ofType(writes, "tool.started").filter((e) => e.kind === "file_change").length).toBeGreaterThan(0);
          expect(byName(files, "notes.txt")).toMatchObject({
            change: "added",
            diff: expect.stringMatching(/^--- \/dev\/null\n\+\+\+ b\/.*\/notes\.txt\n@@ -0,0 \+1,2 @@\n\+hello\n\+world\n$/),
          });
          expect(byName(files, "existing.txt")).toMatchObject({
            change: "modified",
            // claude-agent-acp sends the texts without their last newline, which the diff says.
            diff: expect.stringMatching(/^--- a\/.*\/existing\.txt\n\+\+\+ b\/.*\/existing\.txt\n@@ .* @@\n one\n-two\n\+TWO\n three\n(\\ No newline at end of file\n)?$/),
          });

          const shell = await collect(agent.stream("Now run the shell"));
          const started = ofType(shell, "tool.started");
          expect(started.map((e) => e.kind)).toEqual(["command"]);
          if (c.reportsCommand) {
            expect(started[0]).toMatchObject({ command: expect.stringContaining(SHELL) });
            expect(realpathSync(started[0]!.cwd!)).toBe(realpathSync(ctx.workspace));
            // The whole output, from the final content (codex-acp fences it as a code block).
            expect(ofType(shell, "tool.completed")[0]).toMatchObject({ status: "failed", exitCode: 3, output: expect.stringContaining("start\nend\n") });
          }

          const all = [...writes, ...shell];
          for (const event of all.filter((e) => e.type.startsWith("tool."))) {
            expect(event).not.toHaveProperty("input");
            expect(event).not.toHaveProperty("diff");
          }
          await expectToolFields(`acp:${c.cli}`, all);
        } finally {
          await agent.close();
        }
      });
    });
  });
}
