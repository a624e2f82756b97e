/**
 * The normalized tool fields read from frames Claude Code and CodeBuddy really sent on the lane
 * (test/fixtures/frames/<dialect>/, recorded by scripts/record-frames.mjs): no workspace is read
 * here, so what appears comes from the CLIs' own reports.
 */
import { describe, expect, it } from "vitest";
import type { DriverEvent } from "../../../src/events/types.js";
import { framesOf, replayStreamJson, scenariosOf } from "../../parsers/replay.js";

const find = <T extends DriverEvent["type"]>(events: readonly DriverEvent[], type: T) => events.find((e): e is Extract<DriverEvent, { type: T }> => e.type === type)!;

describe.skipIf(scenariosOf("claude").length === 0)("claude recorded frames: tool fields", () => {
  it("command: Bash with its command, rawInput and exit 0 (a plain foreground success)", async () => {
    const { events } = await replayStreamJson(framesOf("claude", "command"), "claude");
    expect(find(events, "tool.started")).toMatchObject({ kind: "command", name: "Bash", command: "printf 'proof' > proof.txt && echo wrote-proof", rawInput: { command: expect.any(String) } });
    expect(find(events, "tool.started")).not.toHaveProperty("input");
    expect(find(events, "tool.completed")).toMatchObject({ status: "completed", output: "wrote-proof", exitCode: 0 });
  });

  it("approval: a Write that creates a file is added, with a /dev/null diff from the CLI's tool_use_result", async () => {
    const { events } = await replayStreamJson(framesOf("claude", "approval"), "claude");
    expect(find(events, "tool.started")).toMatchObject({ kind: "file_change", name: "Write" });
    expect(find(events, "tool.completed").files).toEqual([{ path: "<workspace>/proof.txt", change: "added", diff: "--- /dev/null\n+++ b/<workspace>/proof.txt\n@@ -0,0 +1,1 @@\n+proof\n" }]);
  });

  it("denied: a declined Write claims no changed files", async () => {
    const { events } = await replayStreamJson(framesOf("claude", "denied"), "claude", { deny: true });
    expect(find(events, "tool.completed")).toMatchObject({ status: "declined" });
    expect(find(events, "tool.completed")).not.toHaveProperty("files");
  });
});

describe.skipIf(scenariosOf("codebuddy").length === 0)("codebuddy recorded frames: tool fields", () => {
  it("command: Bash with its command and the exit code CodeBuddy states", async () => {
    const { events } = await replayStreamJson(framesOf("codebuddy", "command"), "codebuddy");
    expect(find(events, "tool.started")).toMatchObject({ kind: "command", name: "Bash", command: "printf 'proof' > proof.txt && echo wrote-proof" });
    expect(find(events, "tool.completed")).toMatchObject({ status: "completed", exitCode: 0 });
  });
});
