/**
 * The stream-json mapper in both dialects, fed the frames Claude Code and CodeBuddy sent on the
 * real-CLI lane (test/fixtures/frames/claude/, …/codebuddy/), with no process: the canonical
 * events of each scenario, and the usage the driver reads from the result line.
 */
import { describe, expect, it } from "vitest";
import { SLOW_REPLY, completedTexts, deltaTexts, deltasMatchCompletions, framesOf, noticeCodes, replayStreamJson, scenariosOf, terminals, tools } from "./replay.js";

const SCENARIOS = ["approval", "cancel", "command", "denied", "error", "text"];

for (const dialect of ["claude", "codebuddy"] as const) {
  const recorded = scenariosOf(dialect);

  describe.skipIf(recorded.length === 0)(`${dialect} stream-json mapper on recorded frames`, () => {
    it("has every scenario recorded", () => {
      expect(recorded).toEqual(SCENARIOS);
    });

    it("text: the session is bound, reasoning and reply stream and complete once each, usage from the result", async () => {
      const { events, result, usage, sessionId } = await replayStreamJson(framesOf(dialect, "text"), dialect);
      expect(events[0]).toMatchObject({ type: "thread.bound", providerSessionId: sessionId });
      expect(events.filter((e) => e.type === "thread.bound")).toHaveLength(1);
      expect(completedTexts(events, "reasoning.completed")).toEqual(["The user wants a greeting."]);
      expect(completedTexts(events, "message.completed")).toEqual(["Hello from the scripted model."]);
      expect([...deltaTexts(events, "message.delta").values()]).toEqual(["Hello from the scripted model."]);
      expect([...deltaTexts(events, "reasoning.delta").values()]).toEqual(["The user wants a greeting."]);
      expect(deltasMatchCompletions(events)).toBe(true);
      expect(result).toMatchObject({ type: "result", is_error: false, result: "Hello from the scripted model." });
      expect(usage).toMatchObject({ input_tokens: 1200, output_tokens: 30, cached_input_tokens: 200 });
      expect(noticeCodes(events)).toEqual([]);
      expect(terminals(events)).toEqual([]);
    });

    const toolCases = [
      { scenario: "command", kind: "command", status: "completed" },
      { scenario: "approval", kind: "file_change", status: "completed" },
      { scenario: "denied", kind: "file_change", status: "declined" },
    ];
    for (const { scenario, kind, status } of toolCases) {
      it(`${scenario}: one ${kind} tool call, ${status}, then the answer`, async () => {
        const { events, result } = await replayStreamJson(framesOf(dialect, scenario), dialect, { deny: scenario === "denied" });
        expect(tools(events)).toEqual([{ callId: "call_proof", kind, status }]);
        expect(events.findIndex((e) => e.type === "tool.completed")).toBeLessThan(events.findIndex((e) => e.type === "message.completed"));
        expect(completedTexts(events, "message.completed")).toEqual(["The proof file is written."]);
        expect(result).toMatchObject({ is_error: false });
        expect(terminals(events)).toEqual([]);
      });
    }

    it("cancel: what streamed before the interrupt is completed once, with its text", async () => {
      const { events, result } = await replayStreamJson(framesOf(dialect, "cancel"), dialect);
      const streamed = [...deltaTexts(events, "message.delta").entries()];
      expect(streamed).toHaveLength(1);
      const [itemId, text] = streamed[0]!;
      expect(SLOW_REPLY.startsWith(text)).toBe(true);
      expect(events.filter((e) => e.type === "message.completed" && e.itemId === itemId)).toEqual([expect.objectContaining({ text })]);
      // The slow reply is never completed under a second item id.
      expect(completedTexts(events, "message.completed").filter((t) => SLOW_REPLY.startsWith(t))).toEqual([text]);
      expect(result).toBeDefined();
      expect(terminals(events)).toEqual([]);
    });

    it("error: the failed model call ends with an error result, and nothing is mapped as a tool", async () => {
      const { events, result } = await replayStreamJson(framesOf(dialect, "error"), dialect);
      expect(result).toMatchObject({ type: "result", is_error: true });
      expect(tools(events)).toEqual([]);
      // Claude marks the message it writes for an API error (`error`): its text is no model output.
      // CodeBuddy does not mark it, so its error message cannot be told from an answer.
      if (dialect === "claude") expect(completedTexts(events, "message.completed").join("\n")).not.toContain("500");
      else expect(completedTexts(events, "message.completed").join("\n")).toContain("500");
      expect(terminals(events)).toEqual([]);
    });
  });
}
