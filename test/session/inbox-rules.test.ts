/**
 * Session inbox, steer and follow-up rules (issue #18 items 2 and 3), one named test per rule,
 * on a driver whose runs the test ends by hand (harness.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, type Agent } from "../../src/index.js";
import { createSession } from "../../src/session/index.js";
import type { Session } from "../../src/session/types.js";
import { heldDriver, kinds, logOf, noticesOf, until, type HeldDriver } from "./harness.js";

let agent: Agent | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  await agent?.close();
  session = agent = undefined;
});

async function start(driver: HeldDriver, options: Parameters<typeof createSession>[1] = {}): Promise<Session> {
  agent = createAgent(driver);
  session = await createSession(agent, options);
  return session;
}

describe("session inbox", () => {
  it("submit returns a prompt id at once, before its run ends", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    const { promptId } = await s.submit("hello");
    expect(promptId).toMatch(/^prm_/);
    const run = await driver.nextRun();
    expect(s.state()).toBe("running");
    expect(s.status().inFlight?.promptIds).toEqual([promptId]);
    run.finish();
    await until(() => s.state() === "idle");
  });

  it("messages queued while a run is in flight coalesce into one next run whose admission lists their prompt ids", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("first");
    const first = await driver.nextRun();
    const a = await s.submit("second");
    const b = await s.submit("third");
    expect(s.status().queued).toEqual([a.promptId, b.promptId]);
    first.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("second\n\nthird");
    next.finish();
    await until(() => s.state() === "idle");
    expect(driver.runs).toHaveLength(2);
    const admitted = noticesOf(await logOf(s), "session.run_admitted");
    expect(admitted.map((n) => n.promptIds)).toEqual([[expect.any(String)], [a.promptId, b.promptId]]);
    expect(admitted[1]!.runId).toBe(next.runId);
  });

  it("wake: false files context that joins the next run and never causes one", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    const context = await s.submit("the build is red", { wake: false });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(driver.runs).toHaveLength(0);
    expect(s.state()).toBe("created");
    expect(s.status().queued).toEqual([context.promptId]);
    const ask = await s.submit("fix it");
    const run = await driver.nextRun();
    expect(run.prompt).toBe("the build is red\n\nfix it");
    expect(s.status().inFlight?.promptIds).toEqual([context.promptId, ask.promptId]);
    run.finish();
  });

  it("past the soft cap the oldest queued message is dropped with session.prompt_dropped inbox_full", async () => {
    const driver = heldDriver();
    const s = await start(driver, { inboxCap: 2 });
    await s.submit("busy");
    const busy = await driver.nextRun();
    const one = await s.submit("one");
    const two = await s.submit("two");
    const three = await s.submit("three");
    expect(s.status().queued).toEqual([two.promptId, three.promptId]);
    expect(noticesOf(await logOf(s), "session.prompt_dropped")).toEqual([{ type: "session.prompt_dropped", promptId: one.promptId, reason: "inbox_full" }]);
    busy.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("two\n\nthree");
    next.finish();
  });

  it("each message keeps its originator and the last originator wins for the run", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("busy", { from: "alice" });
    const busy = await driver.nextRun();
    await s.submit("a", { from: "bob" });
    await s.submit("b", { from: "carol", wake: false });
    await s.submit("c");
    busy.finish();
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    const log = await logOf(s);
    expect(noticesOf(log, "session.prompt_queued").map((n) => n.from)).toEqual(["alice", "bob", "carol", undefined]);
    expect(noticesOf(log, "session.run_admitted").map((n) => n.from)).toEqual(["alice", "carol"]);
  });

  it("every run's canonical events and every session notice are in the log, in order", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("hi");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    const log = await logOf(s);
    expect(log.map((entry) => entry.seq)).toEqual(log.map((_, index) => index + 1));
    expect(kinds(log)).toEqual([
      "session.state", // created
      "session.prompt_queued",
      "session.state", // running
      "session.run_admitted",
      "run.started",
      "thread.bound",
      "message.completed",
      "run.completed",
      "session.state", // idle (no session.budget: the provider reported no spend)
    ]);
  });
});

describe("session steer and follow-up", () => {
  it("steer reaches the running turn natively where the driver steers (session.steer native)", async () => {
    const driver = heldDriver({ steer: true });
    const s = await start(driver);
    await s.submit("work");
    const run = await driver.nextRun();
    await expect(s.steer("use the other file")).resolves.toBe("native");
    expect(driver.steered).toEqual([{ runId: run.runId, text: "use the other file" }]);
    expect(s.status().queued).toEqual([]);
    run.finish();
    await until(() => s.state() === "idle");
    expect(driver.runs).toHaveLength(1);
    expect(noticesOf(await logOf(s), "session.steer").map((n) => n.delivery)).toEqual(["native"]);
  });

  it("steer without native steering leads the next run (session.steer next_run)", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("work");
    const run = await driver.nextRun();
    await s.submit("and then this");
    await expect(s.steer("stop, do that instead")).resolves.toBe("next_run");
    run.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("stop, do that instead\n\nand then this");
    next.finish();
    expect(noticesOf(await logOf(s), "session.steer").map((n) => n.delivery)).toEqual(["next_run"]);
  });

  it("steer while nothing runs starts a run led by it", async () => {
    const driver = heldDriver({ steer: true });
    const s = await start(driver);
    await expect(s.steer("look at the logs")).resolves.toBe("next_run");
    const run = await driver.nextRun();
    expect(run.prompt).toBe("look at the logs");
    run.finish();
  });

  it("followUp goes to the running turn where the driver queues follow-ups", async () => {
    const driver = heldDriver({ followUp: true });
    const s = await start(driver);
    await s.submit("work");
    const run = await driver.nextRun();
    await s.followUp("then summarise");
    expect(driver.followedUp).toEqual([{ runId: run.runId, text: "then summarise" }]);
    run.finish();
    await until(() => s.state() === "idle");
    expect(driver.runs).toHaveLength(1);
    expect(noticesOf(await logOf(s), "session.follow_up").map((n) => n.delivery)).toEqual(["native"]);
  });

  it("followUp without a native queue runs right after the current run", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("work");
    const run = await driver.nextRun();
    await s.followUp("then summarise");
    expect(driver.runs).toHaveLength(1);
    run.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("then summarise");
    next.finish();
    expect(noticesOf(await logOf(s), "session.follow_up").map((n) => n.delivery)).toEqual(["next_run"]);
  });
});
