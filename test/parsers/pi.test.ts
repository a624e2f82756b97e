/**
 * The Pi event mapper, fed the frames `pi --mode rpc` sent on the real-CLI lane
 * (test/fixtures/frames/pi/), with no process: the canonical events of each scenario and what the
 * run loop reads from the last assistant message.
 */
import { describe, expect, it } from "vitest";
import { SLOW_REPLY, completedTexts, deltaTexts, deltasMatchCompletions, framesOf, noticeCodes, replayPi, scenariosOf, terminals, tools } from "./replay.js";

const recorded = scenariosOf("pi");

describe.skipIf(recorded.length === 0)("pi mapper on recorded frames", () => {
  it("has every scenario recorded", () => {
    expect(recorded).toEqual(["cancel", "command", "error", "text"]);
  });

  it("text: streamed thinking and reply, completed at message_end, usage with cost", async () => {
    const { events, ended, stopReason, finalText, usage } = await replayPi(framesOf("pi", "text"));
    expect(completedTexts(events, "reasoning.completed")).toEqual(["The user wants a greeting."]);
    expect(completedTexts(events, "message.completed")).toEqual(["Hello from the scripted model."]);
    expect([...deltaTexts(events, "message.delta").values()]).toEqual(["Hello from the scripted model."]);
    expect(deltasMatchCompletions(events)).toBe(true);
    // Pi counts input without the cached part: 1200 sent, 200 of them cached.
    expect(usage).toMatchObject({ input_tokens: 1000, output_tokens: 30, cached_input_tokens: 200, total_tokens: 1230, cost_usd: 0 });
    expect(ended).toBe(true);
    expect(stopReason).toBe("stop");
    expect(finalText).toBe("Hello from the scripted model.");
    expect(noticeCodes(events)).toEqual([]);
    expect(terminals(events)).toEqual([]);
  });

  it("command: the bash call with its output, then the answer", async () => {
    const { events, stopReason, finalText } = await replayPi(framesOf("pi", "command"));
    expect(tools(events)).toEqual([{ callId: "call_proof", kind: "command", status: "completed" }]);
    expect(events.find((e) => e.type === "tool.started")).toMatchObject({ name: "bash", command: expect.stringContaining("proof.txt"), rawInput: { command: expect.stringContaining("proof.txt") } });
    expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ output: expect.stringContaining("wrote-proof") });
    expect(events.findIndex((e) => e.type === "tool.completed")).toBeLessThan(events.findIndex((e) => e.type === "message.completed"));
    expect(finalText).toBe("The proof file is written.");
    expect(stopReason).toBe("stop");
    expect(terminals(events)).toEqual([]);
  });

  it("cancel: the aborted message keeps what streamed, and the turn ends aborted", async () => {
    const { events, ended, stopReason } = await replayPi(framesOf("pi", "cancel"));
    const texts = completedTexts(events, "message.completed");
    expect(texts).toHaveLength(1);
    expect(SLOW_REPLY.startsWith(texts[0]!)).toBe(true);
    expect(deltasMatchCompletions(events)).toBe(true);
    expect(ended).toBe(true);
    expect(stopReason).toBe("aborted");
    expect(terminals(events)).toEqual([]);
  });

  it("error: the failed model call ends the turn with stopReason error and no answer", async () => {
    const { events, ended, stopReason, finalText } = await replayPi(framesOf("pi", "error"));
    expect(ended).toBe(true);
    expect(stopReason).toBe("error");
    expect(finalText).toBe("");
    expect(completedTexts(events, "message.completed")).toEqual([]);
    expect(tools(events)).toEqual([]);
    expect(terminals(events)).toEqual([]);
  });
});
