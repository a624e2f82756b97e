/**
 * Run settings, approvals and compaction through a session: `configure` changes the model and
 * effort of later runs only (durably); `respond` answers the approval of the run in flight;
 * `compact` on a driver without native compaction is refused before anything runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, FeatureUnsupportedError, memorySessionStore, ResponseRejectedError, type Agent } from "../../src/index.js";
import { createSession, openSession } from "../../src/session/index.js";
import type { Session } from "../../src/session/types.js";
import { fakeDriver } from "../../src/testing/index.js";
import { heldDriver, logOf, noticesOf, until } from "./harness.js";

let agent: Agent | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  await agent?.close();
  session = agent = undefined;
});

describe("session run settings", () => {
  it("configure changes the model and effort of later runs, not the run in flight, and survives a reopen", async () => {
    const driver = heldDriver();
    const store = memorySessionStore();
    agent = createAgent(driver);
    const first = await createSession(agent, { id: "configured", store, run: { model: "base-model" } });
    await first.submit("one");
    const one = await driver.nextRun();
    await expect(first.configure({ model: "big-model", effort: "high" })).resolves.toEqual({ model: "big-model", effort: "high" });
    one.finish();
    const log = await logOf(first);
    expect(noticesOf(log, "session.configured")).toEqual([{ type: "session.configured", settings: { model: "big-model", effort: "high" } }]);
    await first.submit("two");
    const two = await driver.nextRun();
    expect([one.model, two.model, two.effort]).toEqual(["base-model", "big-model", "high"]);
    two.finish();
    await until(() => first.state() === "idle");
    await first.close();
    session = await openSession(agent, "configured", { store });
    expect(session.status().settings).toEqual({ model: "big-model", effort: "high" });
    await expect(session.configure({ effort: null })).resolves.toEqual({ model: "big-model" });
    await expect(session.configure({ model: "" })).rejects.toMatchObject({ code: "config_invalid" });
  });
});

describe("session approvals", () => {
  it('respond answers the pending approval of the run in flight (onApproval: "stream")', async () => {
    const driver = fakeDriver({
      script: {
        steps: [{ markDelivered: true }, { approve: { requestId: "a1", kind: "command", summary: "run ls", options: [{ id: "allow", label: "Allow", kind: "allow_once" }, { id: "deny", label: "Deny", kind: "deny" }] } }, { emit: { type: "message.completed", itemId: "m", text: "done" } }],
        text: "done",
      },
    });
    agent = createAgent(driver);
    session = await createSession(agent, { run: { onApproval: "stream" } });
    expect(() => session!.respond("a1", { decision: "allow" })).toThrow(ResponseRejectedError);
    await session.submit("list files");
    let requestId: string | undefined;
    for await (const { event } of session.events()) {
      if (event.type === "approval.requested") {
        requestId = event.requestId;
        session.respond(requestId, { decision: "allow" });
      }
      if (event.type === "run.completed") break;
    }
    expect(requestId).toBeDefined();
    const log = await logOf(session);
    expect(log.some(({ event }) => event.type === "notice" && event.message === "decision: allow")).toBe(true);
    expect(log.some(({ event }) => event.type === "approval.resolved" && event.by === "stream")).toBe(true);
  });
});

describe("session goal", () => {
  it("goal() is the current thread's native goal: undefined where the driver has none", async () => {
    agent = createAgent(heldDriver());
    session = await createSession(agent);
    await expect(session.goal()).resolves.toBeUndefined();
    await session.archive();
    await expect(session.goal()).rejects.toMatchObject({ code: "session_archived" });
  });
});

describe("session compact", () => {
  it("compact on a driver without native compaction is refused with FeatureUnsupportedError before anything runs", async () => {
    const driver = heldDriver();
    agent = createAgent(driver);
    session = await createSession(agent);
    await session.sleep();
    await expect(session.compact()).rejects.toBeInstanceOf(FeatureUnsupportedError);
    expect(session.state()).toBe("sleeping");
    expect(driver.runs).toHaveLength(0);
  });
});
