/**
 * A thread with an active goal on a fake app-server that, like Codex, starts turns by itself: on
 * resume (before the run's `turn/start`) and after every turn. The run maps only its own turn:
 * Codex's turn on resume is interrupted before the prompt is delivered and none of its events
 * (nor its `turn/completed`, which is `interrupted`) become the run's; the turn Codex starts after
 * the run's turn never outlives the run, whose process is stopped before it ends.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";

import { codex } from "../../../src/drivers/codex/index.js";
import { readFakeLog, runDirect, writeFakeCodex } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "codex-goal-turns-"));
const executable = writeFakeCodex(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it("interrupts the goal turn Codex starts on resume, maps only the run's own turn and stops the process before the run ends", async () => {
  const workspace = join(root, "workspace");
  const home = join(root, "home");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  const log = join(root, "log.jsonl");
  const driver = codex({ executable, home, env: { FAKE_CODEX_MODE: "goal-turns", FAKE_CODEX_LOG: log } });
  try {
    const first = await runDirect(driver, { prompt: "first", workspace });
    expect(first.error).toBeUndefined();
    const threadId = first.response!.providerSessionId!;

    const resumed = await runDirect(driver, { prompt: "second", workspace, thread: { id: "t1", providerSessionId: threadId } });
    expect(resumed.error).toBeUndefined();
    expect(resumed.response!.text).toBe("Hello from fake codex.");
    expect(JSON.stringify(resumed.events)).not.toContain("GOAL-WORK");
    expect(resumed.events.filter((e) => e.type === "notice" && e.code === "goal_updated").map((e) => (e as { message: string }).message)).toEqual([
      "Codex updated the thread's goal (status active)",
    ]);
    // The run ended with the goal active: the turn Codex went on with was stopped with its process.
    expect(driver.processes().live).toEqual([]);

    const entries = readFakeLog(log);
    const resumedPid = entries.find((e) => e.event === "request" && e.method === "thread/resume")!.pid;
    const asked = entries.filter((e) => e.pid === resumedPid && e.event === "request").map((e) => e.method);
    // Codex's own turn was interrupted before the prompt was delivered, so the prompt started a turn of its own.
    expect(asked.slice(asked.indexOf("thread/resume"))).toEqual(["thread/resume", "turn/interrupt", "turn/start"]);
    expect(entries.find((e) => e.event === "request" && e.method === "turn/interrupt")!.params).toMatchObject({ threadId, turnId: "turn_goal_on_resume" });
    expect(entries.some((e) => e.event === "goal-turn-interrupted" && (e as { turnId?: string }).turnId === "turn_goal_on_resume")).toBe(true);
  } finally {
    await driver.close();
  }
  expect(driver.processes().live).toEqual([]);
});
