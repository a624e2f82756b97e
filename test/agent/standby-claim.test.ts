/**
 * A standby is claimed only by a run that can use it (issue #11): core asks the driver
 * (`canUseStandby`) after the thread's lease and checkpoint, and a run the standby cannot serve
 * leaves it in place for the next one.
 */
import { describe, expect, it } from "vitest";
import { createAgent, type StandbyUse } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("standby claims", () => {
  it("a resume run the standby cannot serve leaves it alive for the next stateless run", async () => {
    const asked: StandbyUse[] = [];
    // Like the stream-json drivers: a session to resume is chosen at spawn.
    const driver = fakeDriver({
      process: true,
      prepare: "ready",
      canUseStandby: (use) => {
        asked.push(use);
        return use.thread?.providerSessionId === undefined;
      },
    });
    const agent = createAgent(driver, { workspace: process.cwd() });
    const thread = await agent.startThread();
    await thread.run("first turn"); // cold: nothing prepared yet
    expect((await agent.prepare()).process).toBe("ready");
    const standbyPid = driver.probe.livePids()[0]!;

    await thread.run("resume");
    expect(driver.probe.standbysUsed).toBe(0);
    expect(alive(standbyPid)).toBe(true);
    expect(asked.at(-1)).toMatchObject({ thread: { id: thread.id, providerSessionId: "fake_session_1" }, policy: {} });

    await agent.run("stateless");
    expect(driver.probe.standbysUsed).toBe(1);
    // first turn, the standby, the resume run; the stateless run spawned nothing.
    expect(driver.probe.startedPids()).toHaveLength(3);
    expect(alive(standbyPid)).toBe(false);
    await agent.close();
  });

  it("without canUseStandby a standby serves only runs that open a new session", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver);
    const thread = await agent.startThread();
    await agent.prepare();
    await thread.run("first turn opens a session");
    expect(driver.probe.standbysUsed).toBe(1);
    await agent.prepare();
    await thread.run("resume");
    expect(driver.probe.standbysUsed).toBe(1);
    await agent.run("stateless");
    expect(driver.probe.standbysUsed).toBe(2);
    await agent.close();
  });

  it("a driver that can serve a resume from its standby is asked with the thread binding and gets it", async () => {
    const asked: StandbyUse[] = [];
    const driver = fakeDriver({ prepare: "ready", canUseStandby: (use) => asked.push(use) > 0 });
    const agent = createAgent(driver);
    const thread = await agent.startThread();
    await thread.run("first");
    await agent.prepare();
    await thread.run("resume", { model: "fake-model" });
    expect(driver.probe.standbysUsed).toBe(0); // the model differs from the prepared signature
    await thread.run("resume");
    expect(driver.probe.standbysUsed).toBe(1);
    expect(asked).toEqual([{ thread: { id: thread.id, providerSessionId: "fake_session_1" }, policy: {} }]);
    await agent.close();
  });

  it("a standby refused by the driver is not claimed by a spawn: true run either, and close() reaps it", async () => {
    const driver = fakeDriver({ process: true, prepare: "ready", canUseStandby: () => false });
    const agent = createAgent(driver, { workspace: process.cwd() });
    await agent.prepare();
    const standbyPid = driver.probe.livePids()[0]!;
    await agent.run("x");
    await agent.run("y", { spawn: true });
    expect(driver.probe.standbysUsed).toBe(0);
    expect(alive(standbyPid)).toBe(true);
    await agent.close();
    expect(alive(standbyPid)).toBe(false);
  });
});
