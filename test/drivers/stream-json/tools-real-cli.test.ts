/**
 * Real-CLI lane of the normalized tool events on Claude Code, CodeBuddy and Pi: one scripted turn
 * each in which the model writes a new file, edits an existing one and runs a command that
 * succeeds and one that exits 3. The tool fields each run showed are checked against (or, with
 * UPDATE_TOOL_FIELDS=1, recorded into) test/fixtures/tool-fields/<driver>.json for docs/api.md.
 */
import { rm, writeFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import type { Driver } from "../../../src/driver/types.js";
import { claude } from "../../../src/drivers/claude/index.js";
import { codebuddy } from "../../../src/drivers/codebuddy/index.js";
import { pi } from "../../../src/drivers/pi/index.js";
import type { AgentEvent, FileChange } from "../../../src/events/types.js";
import type { ModelScript } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext, type RealCliName } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { collect, ofType } from "../helpers.js";
import { laneEnv } from "../real-lane.js";
import { expectToolFields } from "../tool-fields.js";

/** A diff header names an absolute path with one slash after its a/ or b/ prefix, as git does. */
const headerPath = (path: string): string => path.replace(/^\/+/, "");

interface Lane {
  cli: RealCliName;
  driver: string;
  tools: { write: string; edit: string; shell: string };
  /** Arguments of each call, given the absolute path of the file it names. */
  writeArgs(path: string, content: string): Record<string, unknown>;
  editArgs(path: string, from: string, to: string): Record<string, unknown>;
  shellArgs(command: string): Record<string, unknown>;
  /** A call that must come before an edit (CodeBuddy edits only a file it has read). */
  readBeforeEdit?: { name: string; arguments(path: string): Record<string, unknown> };
  make(ctx: RealCliContext): Promise<Driver>;
  /** Whether the provider states a successful command's exit code (Pi does not). */
  successExitCode: boolean;
}

const LANE_KEY = "tools-lane-key-0123456789";

const claudeLane: Lane = {
  cli: "claude",
  driver: "claude",
  tools: { write: "Write", edit: "Edit", shell: "Bash" },
  writeArgs: (path, content) => ({ file_path: path, content }),
  editArgs: (path, from, to) => ({ file_path: path, old_string: from, new_string: to }),
  shellArgs: (command) => ({ command, description: "run it" }),
  successExitCode: true,
  make: async (ctx) =>
    claude({
      executable: ctx.executable,
      configDir: ctx.configDir,
      model: ctx.model,
      settingSources: [],
      provider: { baseUrl: ctx.server.url, apiKeyEnv: "TOOLS_LANE_KEY" },
      env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), TOOLS_LANE_KEY: LANE_KEY },
    }),
};

const codebuddyLane: Lane = {
  ...claudeLane,
  cli: "codebuddy",
  driver: "codebuddy",
  readBeforeEdit: { name: "Read", arguments: (path) => ({ file_path: path }) },
  make: async (ctx) => {
    await rm(join(ctx.configDir, "models.json"), { force: true });
    return codebuddy({
      executable: ctx.entry,
      configDir: ctx.configDir,
      model: ctx.model,
      settingSources: [],
      provider: { baseUrl: ctx.server.url, apiKeyEnv: "TOOLS_LANE_KEY" },
      env: { ...laneEnv(ctx, []), TOOLS_LANE_KEY: LANE_KEY },
    });
  },
};

const piLane: Lane = {
  cli: "pi",
  driver: "pi",
  tools: { write: "write", edit: "edit", shell: "bash" },
  writeArgs: (path, content) => ({ path, content }),
  editArgs: (path, from, to) => ({ path, edits: [{ oldText: from, newText: to }] }),
  shellArgs: (command) => ({ command }),
  successExitCode: false,
  make: async (ctx) =>
    pi({
      executable: ctx.executable,
      args: ctx.executable === process.execPath ? [ctx.entry] : [],
      env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
      provider: { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model },
    }),
};

/** The calls in a row, each sent once the previous one's result reached the model. */
function script(lane: Lane, workspace: string): ModelScript {
  const editPath = join(workspace, "edit.txt");
  const calls = [
    { id: "call_write", name: lane.tools.write, arguments: lane.writeArgs(join(workspace, "new.txt"), "one\ntwo\n") },
    ...(lane.readBeforeEdit ? [{ id: "call_read", name: lane.readBeforeEdit.name, arguments: lane.readBeforeEdit.arguments(editPath) }] : []),
    { id: "call_edit", name: lane.tools.edit, arguments: lane.editArgs(editPath, "beta", "BETA") },
    { id: "call_ok", name: lane.tools.shell, arguments: lane.shellArgs("echo fine") },
    { id: "call_fail", name: lane.tools.shell, arguments: lane.shellArgs("echo out; exit 3") },
  ];
  return {
    turns: [
      ...calls.map((call, i) => ({ match: i === 0 ? { lastUserTextContains: "change the files" } : { toolResultFor: calls[i - 1]!.id }, reply: { toolCalls: [call] } })),
      { match: { toolResultFor: calls.at(-1)!.id }, reply: { text: "All done." } },
    ],
  };
}

const byCall = (events: AgentEvent[], callId: string) => ({
  started: ofType(events, "tool.started").find((e) => e.callId === callId)!,
  completed: ofType(events, "tool.completed").find((e) => e.callId === callId)!,
});

function expectFile(files: FileChange[] | undefined, path: string, change: FileChange["change"], lines: string[]): void {
  expect(files).toHaveLength(1);
  const [file] = files!;
  expect(file).toMatchObject({ path, change });
  const [oldHeader, newHeader] = file!.diff!.split("\n");
  expect(oldHeader).toBe(change === "added" ? "--- /dev/null" : `--- a/${headerPath(path)}`);
  expect(newHeader).toBe(`+++ b/${headerPath(path)}`);
  for (const line of lines) expect(file!.diff!.split("\n")).toContain(line);
}

for (const lane of [claudeLane, codebuddyLane, piLane]) {
  describeRealCli(lane.cli, () => {
    it("a file-writing and shell turn: file_change with a unified diff per file, command with its exit code", async () => {
      await withRealCli(lane.cli, (dirs: { workspace: string }) => script(lane, dirs.workspace), async (ctx) => {
        await writeFile(join(ctx.workspace, "edit.txt"), "alpha\nbeta\ngamma\n");
        const agent = createAgent(await lane.make(ctx), { workspace: ctx.workspace, defaults: { onApproval: async () => ({ decision: "allow" }) } });
        try {
          const stream = agent.stream("Please change the files and run the commands");
          const events = await collect(stream);
          expect((await stream.result).text).toBe("All done.");
          const newPath = join(ctx.workspace, "new.txt");
          const editPath = join(ctx.workspace, "edit.txt");
          expect(await readFile(newPath, "utf8")).toBe("one\ntwo\n");

          const write = byCall(events, "call_write");
          expect(write.started).toMatchObject({ kind: "file_change", name: lane.tools.write });
          expect(write.completed.status).toBe("completed");
          if (lane === piLane && write.completed.files?.[0]?.change === "modified") {
            // Pi runs a call without waiting for the driver's read of the file: when Pi wrote first
            // (a loaded machine), the driver cannot know the file was new and says so honestly —
            // modified, no diff — rather than invent one (see startFiles in src/drivers/pi/tools.ts).
            expect(write.completed.files).toEqual([{ path: newPath, change: "modified" }]);
          } else expectFile(write.completed.files, newPath, "added", ["+one", "+two"]);

          const edit = byCall(events, "call_edit");
          expect(edit.started).toMatchObject({ kind: "file_change", name: lane.tools.edit });
          expectFile(edit.completed.files, editPath, "modified", [" alpha", "-beta", "+BETA", " gamma"]);

          const ok = byCall(events, "call_ok");
          expect(ok.started).toMatchObject({ kind: "command", name: lane.tools.shell, command: "echo fine" });
          expect(ok.started.rawInput).toMatchObject({ command: "echo fine" });
          expect(ok.started).not.toHaveProperty("input");
          expect(ok.completed).toMatchObject({ status: "completed", output: expect.stringContaining("fine") });
          if (lane.successExitCode) expect(ok.completed.exitCode).toBe(0);
          else expect(ok.completed).not.toHaveProperty("exitCode");

          const failed = byCall(events, "call_fail");
          expect(failed.completed).toMatchObject({ status: "failed", exitCode: 3 });
          await expectToolFields(lane.driver, events);
        } finally {
          await agent.close();
        }
      });
    });
  });
}

const ECHO_MCP_SERVER = fileURLToPath(new URL("./fixtures/echo-mcp-server.mjs", import.meta.url));

describeRealCli("claude", () => {
  it("an MCP tool call: kind mcp, the server and tool split from mcp__echo__say, its output", async () => {
    const mcpScript: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "echo server" }, reply: { toolCalls: [{ id: "call_mcp", name: "mcp__echo__say", arguments: { text: "hi" } }] } },
        { match: { toolResultFor: "call_mcp" }, reply: { text: "Echoed." } },
      ],
    };
    await withRealCli("claude", mcpScript, async (ctx) => {
      const agent = createAgent(await claudeLane.make(ctx), {
        workspace: ctx.workspace,
        mcp: [{ name: "echo", command: process.execPath, args: [ECHO_MCP_SERVER] }],
        defaults: { onApproval: async () => ({ decision: "allow" }) },
      });
      try {
        const stream = agent.stream("Ask the echo server to say hi");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("Echoed.");
        const call = byCall(events, "call_mcp");
        expect(call.started).toMatchObject({ kind: "mcp", name: "mcp__echo__say", title: "echo: say", mcp: { server: "echo", tool: "say" }, rawInput: { text: "hi" } });
        expect(call.completed).toMatchObject({ status: "completed", output: "echo: hi" });
        await expectToolFields("claude", events);
      } finally {
        await agent.close();
      }
    });
  });
});
