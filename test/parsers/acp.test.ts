/**
 * The ACP session-update mapper, fed the frames four real ACP agents sent on the real-CLI lane
 * (test/fixtures/frames/acp-*), with no process: the canonical events of each scenario. Each
 * agent's quirks seen in the recordings are asserted as they are, so a change in how the mapper
 * treats them shows here.
 */
import { describe, expect, it } from "vitest";
import type { AcpPresetTraits } from "../../src/drivers/acp/config.js";
import { SLOW_REPLY, completedTexts, deltasMatchCompletions, framesOf, noticeCodes, replayAcp, scenariosOf, terminals, tools } from "./replay.js";

interface AgentCase {
  readonly target: string;
  readonly traits: AcpPresetTraits;
  /** The tool the scripted model calls, as the agent reports it. */
  readonly tool: { callId: string; kind: string };
  /** Whether the agent asks before running it (so a rejection stops it). */
  readonly asks: boolean;
  /** Whether the agent reports the reasoning text verbatim (Gemini adds subject markers, codex-acp a leading blank line). */
  readonly verbatimReasoning: boolean;
}

const CASES: AgentCase[] = [
  { target: "acp-gemini", traits: { id: "gemini", name: "Gemini CLI" }, tool: { callId: "run_shell_command__call_proof", kind: "command" }, asks: true, verbatimReasoning: false },
  { target: "acp-copilot", traits: { id: "copilot", name: "Copilot CLI" }, tool: { callId: "call_proof", kind: "file_change" }, asks: true, verbatimReasoning: true },
  {
    target: "acp-codex",
    traits: { id: "codex-acp", name: "Codex (codex-acp)", usage: ["usage_update", "prompt_response"], diagnosticText: [/^Model metadata for `[^`]*` not found/] },
    tool: { callId: "call_proof", kind: "command" },
    asks: false,
    verbatimReasoning: false,
  },
  { target: "acp-claude", traits: { id: "claude-acp", name: "Claude Code (claude-agent-acp)" }, tool: { callId: "call_proof", kind: "file_change" }, asks: true, verbatimReasoning: true },
];

for (const c of CASES) {
  const recorded = scenariosOf(c.target);

  describe.skipIf(recorded.length === 0)(`ACP mapper on frames recorded from ${c.target}`, () => {
    it("has the text, tool, denied and cancel scenarios recorded", () => {
      expect(recorded).toEqual(expect.arrayContaining(["cancel", "denied", "text", "tool"]));
    });

    it("text: reasoning and reply in one segment each, completed with the streamed text, end_turn", async () => {
      const { events, stopReason, finalText } = await replayAcp(framesOf(c.target, "text"), c.traits);
      expect(completedTexts(events, "message.completed")).toEqual(["Hello from the scripted model."]);
      expect(events.filter((e) => e.type === "message.delta").length).toBeGreaterThan(1);
      const reasoning = completedTexts(events, "reasoning.completed");
      expect(reasoning).toHaveLength(1);
      if (c.verbatimReasoning) expect(reasoning[0]).toBe("The user wants a greeting.");
      else expect(reasoning[0]!.replace(/[*\n]/g, "")).toBe("The user wants a greeting.");
      expect(deltasMatchCompletions(events)).toBe(true);
      expect(stopReason).toBe("end_turn");
      expect(finalText).toBe("Hello from the scripted model.");
      expect(noticeCodes(events)).toContain("available_commands");
      // The recorded list, structured: names without the slash, descriptions and argument hints as sent.
      const frame = framesOf(c.target, "text").find((f) => JSON.stringify(f).includes("available_commands_update")) as { params: { update: { availableCommands: { name: string; description?: string; input?: { hint?: string } }[] } } };
      const advertised = frame.params.update.availableCommands.map((a) => ({
        name: a.name,
        ...(a.description ? { description: a.description } : {}),
        ...(a.input?.hint ? { argumentHint: a.input.hint } : {}),
      }));
      const notice = events.find((e) => e.type === "notice" && e.code === "available_commands") as { commands?: unknown };
      expect(notice.commands).toEqual(advertised);
      expect(terminals(events)).toEqual([]);
    });

    it("tool: one tool call, completed, then the answer", async () => {
      const { events, stopReason, finalText } = await replayAcp(framesOf(c.target, "tool"), c.traits);
      expect(tools(events)).toEqual([{ ...c.tool, status: "completed" }]);
      expect(finalText).toBe("The proof file is written.");
      expect(stopReason).toBe("end_turn");
      expect(terminals(events)).toEqual([]);
    });

    it(c.asks ? "denied: the rejected tool call never completes as a success" : "denied: the agent never asks, so the call runs", async () => {
      const frames = framesOf(c.target, "denied");
      const { events, stopReason } = await replayAcp(frames, c.traits);
      const asked = frames.filter((f) => (f as { method?: string; request?: boolean }).method === "session/request_permission");
      const [call] = tools(events);
      if (c.asks) {
        expect(asked.length).toBeGreaterThanOrEqual(1);
        expect(call).toMatchObject({ callId: c.tool.callId, kind: c.tool.kind });
        expect(["failed", "cancelled"]).toContain(call!.status);
      } else {
        expect(asked).toEqual([]);
        expect(call).toMatchObject({ ...c.tool, status: "completed" });
      }
      expect(stopReason).toBe("end_turn");
      expect(terminals(events)).toEqual([]);
    });

    it("cancel: the prompt answers cancelled, and what streamed before is one completed segment", async () => {
      const { events, stopReason } = await replayAcp(framesOf(c.target, "cancel"), c.traits);
      expect(stopReason).toBe("cancelled");
      const texts = completedTexts(events, "message.completed");
      expect(texts.length).toBeLessThanOrEqual(1);
      for (const text of texts) expect(SLOW_REPLY.startsWith(text)).toBe(true);
      expect(deltasMatchCompletions(events)).toBe(true);
      expect(terminals(events)).toEqual([]);
    });

    it.skipIf(!recorded.includes("error"))("error: no tool call and no successful answer text", async () => {
      const { events, stopReason, finalText } = await replayAcp(framesOf(c.target, "error"), c.traits);
      expect(tools(events)).toEqual([]);
      expect(finalText).not.toContain("scripted model");
      // Agents report a failed model call differently: an error answer, or an end_turn with the error as text.
      expect([undefined, "end_turn", "refusal"]).toContain(stopReason);
      expect(terminals(events)).toEqual([]);
    });
  });
}
