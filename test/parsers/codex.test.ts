/**
 * The Codex notification mapper, fed the frames `codex app-server` sent on the real-CLI lane
 * (test/fixtures/frames/codex/), with no process: the canonical events of each scenario.
 */
import { describe, expect, it } from "vitest";
import { SLOW_REPLY, completedTexts, deltaTexts, deltasMatchCompletions, framesOf, noticeCodes, replayCodex, scenariosOf, terminals, tools } from "./replay.js";

const recorded = scenariosOf("codex");

describe.skipIf(recorded.length === 0)("codex mapper on recorded frames", () => {
  it("has every scenario recorded", () => {
    expect(recorded).toEqual(["approval", "cancel", "command", "error", "text"]);
  });

  it("text: streamed reasoning and reply, completed with the same text, then usage", async () => {
    const { events, outcome, finalText, usage } = await replayCodex(framesOf("codex", "text"));
    expect(completedTexts(events, "reasoning.completed")).toEqual(["The user wants a greeting."]);
    expect(completedTexts(events, "message.completed")).toEqual(["Hello from the scripted model."]);
    expect([...deltaTexts(events, "message.delta").values()]).toEqual(["Hello from the scripted model."]);
    expect(events.filter((e) => e.type === "message.delta").length).toBeGreaterThan(1);
    expect(deltasMatchCompletions(events)).toBe(true);
    expect(usage).toMatchObject({ input_tokens: 1200, output_tokens: 30, total_tokens: 1230, cached_input_tokens: 200 });
    expect(events.at(-1)).toMatchObject({ type: "usage.observed" });
    expect(outcome?.turn.status).toBe("completed");
    expect(outcome?.fatal).toBeUndefined();
    expect(finalText).toBe("Hello from the scripted model.");
    expect(tools(events)).toEqual([]);
    // Codex's warnings about this machine's sandbox and the unknown model become notices.
    expect(noticeCodes(events)).toEqual(["codex_config_warning", "codex_warning"]);
    expect(terminals(events)).toEqual([]);
  });

  for (const scenario of ["command", "approval"]) {
    it(`${scenario}: the command runs as one tool call with its output, then the answer`, async () => {
      const { events, outcome, finalText } = await replayCodex(framesOf("codex", scenario));
      expect(tools(events)).toEqual([{ callId: "call_proof", kind: "command", status: "completed" }]);
      const started = events.find((e) => e.type === "tool.started");
      expect(started).toMatchObject({
        title: expect.stringContaining("printf 'proof' > proof.txt"),
        name: "commandExecution",
        command: expect.stringContaining("printf 'proof' > proof.txt"),
        cwd: "<workspace>",
        rawInput: { cwd: "<workspace>" },
      });
      expect(started).not.toHaveProperty("input");
      const completed = events.find((e) => e.type === "tool.completed");
      expect(completed).toMatchObject({ exitCode: 0, output: expect.stringContaining("wrote-proof") });
      expect(events.findIndex((e) => e.type === "tool.completed")).toBeLessThan(events.findIndex((e) => e.type === "message.completed"));
      expect(finalText).toBe("The proof file is written.");
      expect(outcome?.turn.status).toBe("completed");
      expect(terminals(events)).toEqual([]);
    });
  }

  it("approval: the approval request is a server request, not a notification the mapper sees", () => {
    const frames = framesOf("codex", "approval");
    expect(frames).toContainEqual(expect.objectContaining({ method: "item/commandExecution/requestApproval", request: true }));
  });

  it("cancel: the interrupted turn keeps the text streamed so far and ends interrupted", async () => {
    const { events, outcome } = await replayCodex(framesOf("codex", "cancel"));
    expect(outcome?.turn.status).toBe("interrupted");
    const texts = completedTexts(events, "message.completed");
    expect(texts).toHaveLength(1);
    expect(texts[0]!.length).toBeGreaterThan(0);
    expect(SLOW_REPLY.startsWith(texts[0]!)).toBe(true);
    expect(deltasMatchCompletions(events)).toBe(true);
    expect(terminals(events)).toEqual([]);
  });

  it("error: the fatal error is kept for the outcome, not emitted as an item", async () => {
    const { events, outcome } = await replayCodex(framesOf("codex", "error"));
    expect(outcome?.turn.status).toBe("failed");
    expect(outcome?.fatal).toMatchObject({ codexErrorInfo: "internalServerError", message: expect.any(String) });
    expect(events.filter((e) => e.type !== "notice")).toEqual([]);
    expect(terminals(events)).toEqual([]);
  });
});
