/**
 * Every portable command over a real session on the fake driver: what it shows, what it changes,
 * and that the slash tool itself never starts a run (prompts reach the provider only through
 * `session.submit`, on the one execution path).
 */
import { describe, expect, it } from "vitest";
import type { Driver, GoalRequest, RunRequest } from "../../../src/driver/types.js";
import type { Goal, GoalResponse } from "../../../src/driver/goals.js";
import { SLASH_COMMAND_ORDER } from "../../../src/hosttools/slash/index.js";
import type { FakeDriver } from "../../../src/testing/fake-driver/driver.js";
import type { Agent } from "../../../src/agent/agent.js";
import { createSession } from "../../../src/session/open.js";
import { handled, logged, rig, runTurn, waitFor } from "./helpers.js";

const EFFORTS_INSPECTION = {
  models: {
    status: "observed" as const,
    value: [
      { id: "fast", isDefault: true, efforts: [{ id: "low" }, { id: "high" }], defaultEffort: "low" },
      { id: "deep", efforts: [{ id: "medium" }, { id: "xhigh" }] },
    ],
    evidence: [{ transport: "fake", method: "fake/models", scope: "process" as const, observedAt: new Date().toISOString(), durationMs: 0 }],
  },
};

describe("the slash tool and prompts", () => {
  it("hands plain text back for the session and never starts a run itself", async () => {
    await using r = await rig();
    for (const text of ["fix the test", "/usr/bin is full", "//help", ""]) {
      expect(await r.slash.dispatch(text)).toEqual({ handled: false, reason: "not_a_command" });
    }
    for (const line of ["/help", "/status", "/model", "/model other-model", "/effort high", "/compact", "/goal"]) await r.slash.dispatch(line);
    expect(r.driver.probe.calls.run).toBe(0);
    expect(r.session.status().lastSeq).toBeGreaterThan(0);
    expect((await logged(r.session)).some((e) => e.type === "run.started")).toBe(false);
  });
});

describe("/help", () => {
  it("lists the portable commands in the fixed order, with argument hints and aliases", async () => {
    await using r = await rig({ slash: { aliases: { clear: ["reset"], model: ["m", "/mdl"] } } });
    const out = handled(await r.slash.dispatch("/help"));
    expect(out).toMatchObject({ ok: true, command: "help" });
    const lines = out.output.split("\n").filter((l) => l.startsWith("  /"));
    // The fake provider keeps no goals: /goal is not offered.
    expect(lines.map((l) => l.trim().split(/\s/)[0])).toEqual(SLASH_COMMAND_ORDER.filter((c) => c !== "goal").map((c) => `/${c}`));
    expect(out.output).toContain("/clear — Start a fresh provider conversation in this session (also /reset)");
    expect(out.output).toContain("/model [<model> | --reset] — Show or set the model of the next runs (also /m, /mdl)");
    expect(out.output).toContain("/resume <thread>");
    // The fake provider has no commands panel: what other /words do is said.
    expect(out.output).toMatch(/The provider's own commands are not known here \(the fake provider has no such method\)/);
  });
});

describe("/status", () => {
  it("shows the session, thread, driver, settings, gate, queue and spend from the session alone", async () => {
    await using r = await rig({ driver: { script: { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "i", text: "ok" } }], text: "ok", usage: { input_tokens: 1200, output_tokens: 34, cost_usd: 0.125 } } } });
    await runTurn(r.session, "hello");
    await r.session.pause("lunch");
    const out = handled(await r.slash.dispatch("/status"));
    const status = r.session.status();
    expect(out.ok).toBe(true);
    expect(out.output).toContain(`Session ${status.id}: idle`);
    expect(out.output).toContain(`Thread: ${status.threadId}`);
    expect(out.output).toContain("Driver: Fake driver");
    expect(out.output).toContain("Model: provider default");
    expect(out.output).toContain("Input: paused (lunch); 0 queued");
    expect(out.output).toContain("Spent: $0.125, 1,234 tokens");
    expect(r.driver.probe.calls.inspect).toBe(0);
    expect(handled(await r.slash.dispatch("/status now"))).toMatchObject({ ok: false, code: "usage", output: "Usage: /status" });
  });
});

describe("/model and /effort", () => {
  it("shows the provider's default and list, sets the model of the next runs (run.started names it) and resets it", async () => {
    await using r = await rig();
    const shown = handled(await r.slash.dispatch("/model"));
    expect(shown.output).toBe("Model: fake-model (default)\nOffered: fake-model");

    const set = handled(await r.slash.dispatch("/model fake-model"));
    expect(set).toMatchObject({ ok: true, command: "model" });
    expect(set.output).toBe("Model set to fake-model; applied from the next run, with the next run's options.");
    expect(handled(await r.slash.dispatch("/model")).output).toBe("Model: fake-model\nOffered: fake-model");
    expect(handled(await r.slash.dispatch("/status")).output).toContain("Model: fake-model");
    await runTurn(r.session, "first");
    expect((await logged(r.session)).filter((e) => e.type === "run.started").map((e) => (e as { model?: string }).model)).toEqual(["fake-model"]);

    // A model the provider does not list is set with a note: providers accept aliases they do not list.
    const unlisted = handled(await r.slash.dispatch("/model other-model"));
    expect(unlisted.ok).toBe(true);
    expect(unlisted.output).toContain("Note: other-model is not in the provider's model list (fake-model)");
    await runTurn(r.session, "second");

    expect(handled(await r.slash.dispatch("/model --reset")).output).toMatch(/^Model reset to the default;/);
    await runTurn(r.session, "third");
    const models = (await logged(r.session)).filter((e) => e.type === "run.started").map((e) => (e as { model?: string }).model);
    expect(models).toEqual(["fake-model", "other-model", undefined]);
    expect(handled(await r.slash.dispatch("/model a b"))).toMatchObject({ ok: false, code: "usage", output: "Usage: /model [<model> | --reset]" });
  });

  it("keeps the run in flight on its model and says the change applies from the next run", async () => {
    await using r = await rig({ driver: { script: (prompt) => (prompt.includes("slow") ? { steps: [{ markDelivered: true }, { waitForAbort: true }] } : { steps: [{ markDelivered: true }], text: "ok" }) } });
    await r.session.submit("slow one");
    await waitFor(r.session, (e) => e.type === "run.started");
    const out = handled(await r.slash.dispatch("/model next-model"));
    expect(out.output).toContain("applied from the next run (the run in flight keeps its own)");
    await r.session.interrupt();
    await waitFor(r.session, (e) => e.type === "run.cancelled");
    await runTurn(r.session, "quick one");
    const models = (await logged(r.session)).filter((e) => e.type === "run.started").map((e) => (e as { model?: string }).model);
    expect(models).toEqual([undefined, "next-model"]);
  });

  it("refuses an effort the model in effect does not list, and sets a listed one", async () => {
    await using r = await rig({ driver: { inspect: EFFORTS_INSPECTION } });
    expect(handled(await r.slash.dispatch("/effort")).output).toBe("Effort: low (default)\nOffered: low, high");
    expect(handled(await r.slash.dispatch("/effort xhigh"))).toMatchObject({ ok: false, code: "usage", output: "fast does not offer effort xhigh (offered: low, high)." });
    expect(handled(await r.slash.dispatch("/effort high"))).toMatchObject({ ok: true });
    // After /model deep, the levels are deep's.
    await r.slash.dispatch("/model deep");
    expect(handled(await r.slash.dispatch("/effort high"))).toMatchObject({ ok: false, output: "deep does not offer effort high (offered: medium, xhigh)." });
    expect(handled(await r.slash.dispatch("/effort xhigh")).ok).toBe(true);
    await runTurn(r.session, "go");
    const started = (await logged(r.session)).find((e) => e.type === "run.started");
    expect(started).toMatchObject({ model: "deep" });
    expect(r.driver.probe.calls.inspect).toBe(1);
  });
});

describe("/new, /resume, /fork", () => {
  it("/new makes a new session on a fresh thread current and closes the previous one", async () => {
    await using r = await rig();
    await runTurn(r.session, "remember this");
    const before = r.session;
    const out = handled(await r.slash.dispatch("/new"));
    expect(out).toMatchObject({ ok: true, command: "new", switchedFrom: before });
    expect(out.session).toBe(r.slash.session);
    expect(out.session).not.toBe(before);
    expect(out.session.status().threadId).not.toBe(before.status().threadId);
    expect(out.output).toBe(`New session ${out.session.id} (thread ${out.session.status().threadId}).`);
    await expect(before.submit("still there?")).rejects.toThrow();
    await runTurn(out.session, "fresh");
    expect(r.driver.probe.runs.at(-1)?.thread?.providerSessionId).toBeUndefined();
  });

  it("/resume <thread> returns to a stored thread; a missing one is refused before anything starts", async () => {
    await using r = await rig();
    await runTurn(r.session, "first conversation");
    const firstThread = r.session.status().threadId;
    await r.slash.dispatch("/new");
    expect(handled(await r.slash.dispatch("/resume no-such-thread"))).toMatchObject({ ok: false, code: "not_found", output: "No stored thread no-such-thread." });
    expect(handled(await r.slash.dispatch("/resume"))).toMatchObject({ ok: false, code: "usage", output: "Usage: /resume <thread>" });
    const out = handled(await r.slash.dispatch(`/resume ${firstThread}`));
    expect(out).toMatchObject({ ok: true, command: "resume", output: `Resumed thread ${firstThread} in session ${out.session.id}.` });
    expect(out.session.status().threadId).toBe(firstThread);
    await runTurn(out.session, "continue");
    // The provider conversation of the first thread is resumed natively.
    const conversation = (await (await r.agent.resumeThread(firstThread)).info()).providerSessionId;
    expect(conversation).toBeDefined();
    expect(r.driver.probe.runs.at(-1)?.thread).toEqual({ id: firstThread, providerSessionId: conversation });
  });

  it("/fork continues a native copy of the conversation in a new session", async () => {
    await using r = await rig();
    await runTurn(r.session, "base");
    const parent = r.session.status().threadId;
    const out = handled(await r.slash.dispatch("/fork"));
    expect(out.ok).toBe(true);
    const forked = out.session.status().threadId;
    expect(forked).not.toBe(parent);
    expect(out.output).toBe(`Forked thread ${parent} into thread ${forked}; session ${out.session.id} continues the copy.`);
    expect((await (await r.agent.resumeThread(forked)).info()).parentId).toBe(parent);
    await runTurn(out.session, "branch");
    expect(r.driver.probe.runs.at(-1)?.thread).toMatchObject({ id: forked, fork: true });
  });

  it("refuses to switch while a run is in flight (it would be cancelled), unless the previous session is kept", async () => {
    await using r = await rig({ driver: { script: { steps: [{ markDelivered: true }, { waitForAbort: true }] } } });
    await r.session.submit("long");
    await waitFor(r.session, (e) => e.type === "run.started");
    for (const line of ["/new", "/fork", "/resume other", "/clear"]) {
      expect(handled(await r.slash.dispatch(line))).toMatchObject({ ok: false, code: "busy" });
    }
    expect(r.slash.session).toBe(r.session);
    expect(r.session.status().inFlight).toBeDefined();
    await r.session.interrupt();
  });

  it("runs concurrent switches one at a time, each from the session the one before left current", async () => {
    await using r = await rig();
    const first = r.session;
    const [a, b] = await Promise.all([r.slash.dispatch("/new"), r.slash.dispatch("/new")]).then((outs) => outs.map(handled));
    expect(a!.switchedFrom).toBe(first);
    expect(b!.switchedFrom).toBe(a!.session);
    expect(r.slash.session).toBe(b!.session);
    expect(new Set([first.id, a!.session.id, b!.session.id]).size).toBe(3);
    expect(a!.session.state()).not.toBe("running");
    await expect(a!.session.submit("closed?")).rejects.toThrow();
  });

  it("after the session is archived, its commands fail typed and /new still opens a fresh one", async () => {
    await using r = await rig();
    await r.session.archive();
    const refusedModel = handled(await r.slash.dispatch("/model x"));
    expect(refusedModel).toMatchObject({ ok: false, code: "failed" });
    expect(refusedModel.output).toMatch(/^\/model failed \(session_archived\): /);
    expect(handled(await r.slash.dispatch("/status")).output).toContain(": archived");
    const out = handled(await r.slash.dispatch("/new"));
    expect(out.ok).toBe(true);
    await runTurn(out.session, "fresh start");
  });

  it("uses the host's openSession and keeps the previous session open when asked", async () => {
    const requests: unknown[] = [];
    const holder: { agent?: Agent } = {};
    await using r = await rig({
      slash: {
        closePrevious: false,
        openSession: async (request) => {
          requests.push({ reason: request.reason, threadId: request.threadId, previous: request.previous.id });
          return createSession(holder.agent!, { id: `host-${requests.length}`, ...(request.threadId ? { threadId: request.threadId } : {}) });
        },
      },
    });
    holder.agent = r.agent;
    const first = r.session;
    const out = handled(await r.slash.dispatch("/new"));
    expect(out.session.id).toBe("host-1");
    expect(requests).toEqual([{ reason: "new", threadId: undefined, previous: first.id }]);
    await runTurn(first, "still usable");
    await out.session.close();
  });
});

describe("/clear and /compact", () => {
  it("/clear starts a fresh provider conversation in the same session", async () => {
    await using r = await rig();
    await runTurn(r.session, "old");
    const before = r.session.status().threadId;
    const out = handled(await r.slash.dispatch("/clear"));
    expect(out).toMatchObject({ ok: true, command: "clear", session: r.session });
    expect(r.session.status().threadId).not.toBe(before);
    expect(out.output).toBe(`Started a fresh provider conversation (thread ${r.session.status().threadId}).`);
    await runTurn(r.session, "new");
    expect(r.driver.probe.runs.at(-1)?.thread?.providerSessionId).toBeUndefined();
  });

  it("/compact is refused as unsupported where the driver has no native compaction", async () => {
    await using r = await rig();
    await runTurn(r.session, "something");
    const out = handled(await r.slash.dispatch("/compact"));
    expect(out).toMatchObject({ ok: false, code: "unsupported", command: "compact" });
    expect(out.output).toBe("/compact is not available here: driver fake does not support compact");
    expect((out.error as { code?: string }).code).toBe("feature_unsupported");
  });

  it("/compact runs the provider's native compaction as one turn of the session", async () => {
    await using r = await rig({ wrap: withCompactAndGoals });
    await runTurn(r.session, "something");
    const out = handled(await r.slash.dispatch("/compact"));
    expect(out).toMatchObject({ ok: true, output: "Compacted the conversation." });
    expect(compactions.get(r.driver)).toBe(1);
  });
});

describe("/goal", () => {
  it("is refused as unsupported where the provider keeps no goals", async () => {
    await using r = await rig();
    expect(handled(await r.slash.dispatch("/goal ship it"))).toMatchObject({ ok: false, code: "unsupported", output: "/goal is not available here: the provider keeps no native goals" });
  });

  it("shows, sets, pauses, resumes, budgets and clears the native goal", async () => {
    await using r = await rig({ wrap: withCompactAndGoals });
    await runTurn(r.session, "start");
    const say = async (line: string) => handled(await r.slash.dispatch(line));
    const help = (await say("/help")).output.split("\n").filter((l) => l.startsWith("  /"));
    expect(help.map((l) => l.trim().split(/\s/)[0])).toEqual(SLASH_COMMAND_ORDER.map((c) => `/${c}`));
    expect((await say("/goal")).output).toBe("No goal is set.");
    expect((await say("/goal ship the release")).output).toBe("Goal (active): ship the release\nUsed: 0 tokens, 0 sec");
    expect((await say("/goal pause")).output).toMatch(/^Goal \(paused\)/);
    expect((await say("/goal resume")).output).toMatch(/^Goal \(active\)/);
    expect((await say("/goal budget 5000")).output).toContain("Used: 0 of 5,000 tokens");
    expect((await say("/goal budget --none")).output).not.toContain(" of ");
    expect((await say("/goal set pause the world")).output).toMatch(/^Goal \(active\): pause the world/);
    expect(await say("/goal budget lots")).toMatchObject({ ok: false, code: "usage" });
    expect((await say("/goal clear")).output).toBe("Goal cleared.");
    expect((await say("/goal clear")).output).toBe("There was no goal to clear.");
  });
});

/* ---- a fake provider with native compaction and goals (the SPI's own hooks, no mocks of the session) ---- */

const compactions = new WeakMap<FakeDriver, number>();

function withCompactAndGoals(fake: FakeDriver): Driver {
  let goal: Goal | undefined;
  const now = () => new Date().toISOString();
  const goals = async (request: GoalRequest): Promise<GoalResponse> => {
    const op = request.operation;
    if (op.op === "probe" || op.op === "get") return { supported: true, ...(goal ? { goal: { ...goal } } : {}) };
    if (op.op === "clear") {
      const cleared = goal !== undefined;
      goal = undefined;
      return { supported: true, cleared };
    }
    if (op.objective !== undefined && goal === undefined) goal = { objective: op.objective, status: "active", tokensUsed: 0, timeUsedSeconds: 0, createdAt: now(), updatedAt: now() };
    if (goal === undefined) return { supported: true };
    if (op.objective !== undefined) goal.objective = op.objective;
    if (op.status !== undefined) goal.status = op.status;
    if (op.tokenBudget === null) delete goal.tokenBudget;
    else if (op.tokenBudget !== undefined) goal.tokenBudget = op.tokenBudget;
    return { supported: true, goal: { ...goal } };
  };
  return {
    ...fake,
    descriptor: () => {
      const d = fake.descriptor();
      return { ...d, features: { ...d.features, compact: "native" } };
    },
    run: (request: RunRequest, sink, signal) => {
      if (request.operation === "compact") compactions.set(fake, (compactions.get(fake) ?? 0) + 1);
      return fake.run(request, sink, signal);
    },
    goals,
  };
}
