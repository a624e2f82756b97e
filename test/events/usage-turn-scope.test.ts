/**
 * The turn scope of usage on drivers that report no per-turn figure (issue #15 item 3): Codex's
 * turn is the growth of its own thread total (the snapshot replayed on resume is the start, not a
 * request), Pi's is its per-request figures over the turn, each counted once. Nothing is made up:
 * a key the provider left out, or a total that shrank, stays absent.
 */
import { describe, expect, it } from "vitest";
import { CodexTurnUsage } from "../../src/drivers/codex/usage.js";
import { PiTurnUsage } from "../../src/drivers/pi/usage.js";

const breakdown = (input: number, output: number, cached = 0) => ({
  totalTokens: input + output,
  inputTokens: input,
  cachedInputTokens: cached,
  cacheWriteInputTokens: 0,
  outputTokens: output,
  reasoningOutputTokens: 0,
});

/** Codex's notification payload as it arrives: unchecked JSON. */
const observe = (usage: CodexTurnUsage, tokenUsage: object) => usage.observe(tokenUsage as Parameters<CodexTurnUsage["observe"]>[0]);

describe("Codex turn usage", () => {
  it("sums a two-request turn from the growth of total, not from last", () => {
    const usage = new CodexTurnUsage();
    usage.turnStarted();
    observe(usage, { last: breakdown(1000, 20), total: breakdown(1000, 20), modelContextWindow: 258400 });
    const second = observe(usage, { last: breakdown(1300, 30), total: breakdown(2300, 50), modelContextWindow: 258400 });
    expect(second).toMatchObject({ input_tokens: 2300, output_tokens: 50, total_tokens: 2350, cumulative_input_tokens: 2300, context_size: 258400 });
    expect(usage.current).toEqual(second);
  });

  it("takes the snapshot replayed before turn/started as the start, and publishes nothing for it", () => {
    const usage = new CodexTurnUsage();
    expect(observe(usage, { last: breakdown(1300, 30), total: breakdown(2300, 50), modelContextWindow: null })).toBeUndefined();
    usage.turnStarted();
    const turn = observe(usage, { last: breakdown(1500, 40), total: breakdown(3800, 90), modelContextWindow: null });
    expect(turn).toMatchObject({ input_tokens: 1500, output_tokens: 40, cumulative_input_tokens: 3800, cumulative_output_tokens: 90 });
    expect(turn!.context_size).toBeUndefined();
  });

  it("on a warm connection (no replay) starts from the first update's total minus its last", () => {
    const usage = new CodexTurnUsage();
    usage.turnStarted();
    const turn = observe(usage, { last: breakdown(1500, 40, 300), total: breakdown(3800, 90, 600), modelContextWindow: null });
    expect(turn).toMatchObject({ input_tokens: 1500, output_tokens: 40, cached_input_tokens: 300 });
  });

  it("leaves a key absent when Codex left it out or its total shrank", () => {
    const usage = new CodexTurnUsage();
    expect(observe(usage, { total: breakdown(5000, 100), last: breakdown(100, 10), modelContextWindow: null })).toBeUndefined();
    usage.turnStarted();
    const turn = observe(usage, { total: { inputTokens: 4000, outputTokens: 150 }, last: { inputTokens: 10 }, modelContextWindow: null });
    expect(turn).toEqual({ output_tokens: 50, cumulative_input_tokens: 4000, cumulative_output_tokens: 150 });
  });
});

describe("Pi turn usage", () => {
  it("adds each request once and keeps the turn so far", () => {
    const usage = new PiTurnUsage();
    expect(usage.current).toBeUndefined();
    expect(usage.add({ input_tokens: 900, output_tokens: 20, cost_usd: 0.5 })).toEqual({ input_tokens: 900, output_tokens: 20, cost_usd: 0.5 });
    expect(usage.add({ input_tokens: 1100, output_tokens: 30, cost_usd: 0.25 })).toEqual({ input_tokens: 2000, output_tokens: 50, cost_usd: 0.75 });
    expect(usage.current).toEqual({ input_tokens: 2000, output_tokens: 50, cost_usd: 0.75 });
  });

  it("drops a key one request lacks instead of passing a partial sum off as the turn's", () => {
    const usage = new PiTurnUsage();
    usage.add({ input_tokens: 900, cost_usd: 0.5 });
    expect(usage.add({ input_tokens: 1100 })).toEqual({ input_tokens: 2000 });
    expect(usage.add({ input_tokens: 100, cost_usd: 0.1 })).toEqual({ input_tokens: 2100 });
  });
});
