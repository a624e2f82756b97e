/**
 * The slash tool as an operator types it: quoted and unicode arguments, a quote left open, and a
 * goal objective given in quotes — over a real session on the fake driver.
 */
import { describe, expect, it } from "vitest";
import type { Driver, GoalRequest } from "../../src/driver/types.js";
import type { Goal, GoalResponse } from "../../src/driver/goals.js";
import type { FakeDriver } from "../../src/testing/fake-driver/driver.js";
import { handled, rig, runTurn } from "../hosttools/slash/helpers.js";

/** The fake driver with a native goal it keeps in memory (the SPI's own hook). */
function withGoal(fake: FakeDriver): Driver {
  let goal: Goal | undefined;
  const goals = async (request: GoalRequest): Promise<GoalResponse> => {
    const op = request.operation;
    if (op.op === "probe" || op.op === "get") return { supported: true, ...(goal ? { goal: { ...goal } } : {}) };
    if (op.op === "clear") {
      goal = undefined;
      return { supported: true, cleared: true };
    }
    const now = new Date().toISOString();
    goal ??= { objective: "", status: "active", tokensUsed: 0, timeUsedSeconds: 0, createdAt: now, updatedAt: now };
    if (op.objective !== undefined) goal.objective = op.objective;
    return { supported: true, goal: { ...goal } };
  };
  return { ...fake, goals };
}

describe("arguments as typed", () => {
  it("a quoted argument with spaces and unicode is one value; a quote left open is a usage error that changes nothing", async () => {
    await using r = await rig();
    expect(handled(await r.slash.dispatch('/model "模型 ✓ v2"')).ok).toBe(true);
    expect(r.session.status().settings.model).toBe("模型 ✓ v2");
    for (const line of ['/model "gpt 5', '/effort "high', '/model a "b']) {
      expect(handled(await r.slash.dispatch(line)), line).toMatchObject({ ok: false, code: "usage" });
    }
    expect(r.session.status().settings).toEqual({ model: "模型 ✓ v2" });
    expect(handled(await r.slash.dispatch('/model "say \\"hi\\""')).ok).toBe(true);
    expect(r.session.status().settings.model).toBe('say "hi"');
  });
});

describe("/goal objectives", () => {
  it('an objective given as one quoted argument is set without its quotes; quotes inside a sentence stay', async () => {
    await using r = await rig({ wrap: withGoal });
    await runTurn(r.session, "hello"); // a goal belongs to a conversation that has taken a turn
    const objective = async () => (await (await r.session.goal())!.get())?.objective;
    expect(handled(await r.slash.dispatch('/goal set "Ship v2 ✓"')).ok).toBe(true);
    expect(await objective()).toBe("Ship v2 ✓");
    expect(handled(await r.slash.dispatch('/goal "修复测试"')).ok).toBe(true);
    expect(await objective()).toBe("修复测试");
    expect(handled(await r.slash.dispatch('/goal fix the "flaky" test')).ok).toBe(true);
    expect(await objective()).toBe('fix the "flaky" test');
    expect(handled(await r.slash.dispatch('/goal cut a 12" pipe')).ok).toBe(true);
    expect(await objective()).toBe('cut a 12" pipe');
    expect(handled(await r.slash.dispatch('/goal set "a" and "b"')).ok).toBe(true);
    expect(await objective()).toBe('"a" and "b"');
  });
});
