/**
 * Interrupt, hold, pause and resume (issue #18 item 4), one named test per ordering rule, on a
 * driver whose runs the test ends by hand (harness.ts).
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

async function start(driver: HeldDriver): Promise<Session> {
  agent = createAgent(driver);
  session = await createSession(agent);
  return session;
}

/** Lets every pending callback and store write run, so "nothing started" is observed after the fact. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("interrupt", () => {
  it("interrupt returns whether a run was in flight and is safe to repeat while it unwinds", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await expect(s.interrupt()).resolves.toBe(false);
    await s.submit("long job");
    const run = await driver.nextRun();
    await expect(s.interrupt()).resolves.toBe(true);
    await expect(s.interrupt()).resolves.toBe(true);
    await run.ended;
    expect(run.cancelled).toBe(true);
    await until(() => s.state() === "idle");
    await expect(s.interrupt()).resolves.toBe(false);
    const terminals = (await logOf(s)).filter((entry) => entry.event.type === "run.cancelled");
    expect(terminals).toHaveLength(1);
  });

  it("after a plain interrupt the gate stays open and queued input runs next", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("long job");
    await driver.nextRun();
    await s.submit("next");
    await s.interrupt();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("next");
    next.finish();
  });
});

describe("hold, pause and resume", () => {
  it("interruptAndHold closes the gate atomically with the cancel: the queued prompt does not start", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("long job");
    const run = await driver.nextRun();
    const queued = await s.submit("queued meanwhile");
    await expect(s.interruptAndHold("operator looks")).resolves.toBe(true);
    await run.ended;
    await until(() => s.state() === "idle");
    await settle();
    expect(driver.runs).toHaveLength(1);
    expect(s.status().gate).toMatchObject({ open: false, by: "hold", reason: "operator looks" });
    expect(s.status().queued).toEqual([queued.promptId]);
    // The gate closed before the run's terminal was logged.
    const log = kinds(await logOf(s));
    expect(log.indexOf("session.gate")).toBeLessThan(log.indexOf("run.cancelled"));
  });

  it("pause lets the in-flight run finish and admits no new one", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    await s.submit("later");
    await s.pause("deploy window");
    run.finish();
    await run.ended;
    await until(() => s.state() === "idle");
    await settle();
    expect(run.cancelled).toBe(false);
    expect(driver.runs).toHaveLength(1);
    expect(s.status().gate).toMatchObject({ open: false, by: "pause", reason: "deploy window" });
  });

  it("injected input never opens a gate a person closed: submit, steer and followUp only queue", async () => {
    const driver = heldDriver({ steer: true, followUp: true });
    const s = await start(driver);
    await s.pause("hands off");
    await s.submit("one");
    await expect(s.steer("two")).resolves.toBe("next_run");
    await s.followUp("three");
    await settle();
    expect(driver.runs).toHaveLength(0);
    expect(s.status().gate.open).toBe(false);
    expect(s.status().queued).toHaveLength(3);
  });

  it("resume queues first, then opens the gate, then wakes — in that order in the log", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.interruptAndHold("stop");
    await s.resume({ mode: "continue", message: "go on" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("go on");
    const log = kinds(await logOf(s));
    const tail = log.slice(log.lastIndexOf("session.prompt_queued"));
    expect(tail.slice(0, 4)).toEqual(["session.prompt_queued", "session.gate", "session.state", "session.run_admitted"]);
    run.finish();
  });

  it('resume({ mode: "steer" }) puts its message ahead of the queue', async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    await s.submit("queued a");
    await s.interruptAndHold("wrong direction");
    await run.ended;
    await s.resume({ mode: "steer", message: "use approach B" });
    const next = await driver.nextRun();
    expect(next.prompt).toBe("use approach B\n\nqueued a");
    next.finish();
  });

  it('resume({ mode: "abandon" }) drops the queue, each prompt reported, then queues its message', async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.pause("wait");
    const a = await s.submit("a");
    const b = await s.submit("b");
    await s.resume({ mode: "abandon", message: "fresh start" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("fresh start");
    const dropped = noticesOf(await logOf(s), "session.prompt_dropped");
    expect(dropped).toEqual([
      { type: "session.prompt_dropped", promptId: a.promptId, reason: "abandoned" },
      { type: "session.prompt_dropped", promptId: b.promptId, reason: "abandoned" },
    ]);
    run.finish();
  });

  it("resume without a message runs the queue as it is", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.pause("wait");
    await s.submit("a");
    await s.submit("b", { wake: false });
    await s.resume({ mode: "continue" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("a\n\nb");
    run.finish();
  });
});
