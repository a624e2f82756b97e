/**
 * Stops and turn completion on the ACP driver (issue #14 items 3 and 5), against the fake ACP agent:
 * - an agent ignoring `session/cancel`, the end of its input and SIGTERM is escalated to SIGKILL
 *   and reaped before the loop ends, and the consumer reads no delta after its cancel;
 * - a finished turn's result resolves while its process still runs (the fake exits only once the
 *   test releases it), and `close()` then leaves no process behind;
 * - a pending permission request is answered `cancelled` before `session/cancel` reaches the agent.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { acp, type AcpDriver } from "../../../src/drivers/acp/index.js";
import { RunCancelledError } from "../../../src/errors/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { groupAlive } from "../../../src/process/group.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-stops-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Fixture {
  driver: AcpDriver;
  workspace: string;
  /** What the agent logged (FAKE_ACP_LOG). */
  log(): { event: string }[];
  /** What the agent read off its input, in arrival order (FAKE_ACP_WIRE_LOG). */
  wire(): string[];
  /** The file whose existence lets a lingering agent exit. */
  release: string;
}

let n = 0;
function readLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

function fake(): Fixture {
  const dir = join(root, `f${++n}`);
  const workspace = join(dir, "workspace");
  mkdirSync(workspace, { recursive: true });
  const log = join(dir, "log.jsonl");
  const wire = join(dir, "wire.jsonl");
  const release = join(dir, "release");
  const driver = acp({ command: process.execPath, args: [fixture], env: { FAKE_ACP_LOG: log, FAKE_ACP_WIRE_LOG: wire, FAKE_ACP_RELEASE_FILE: release } });
  return {
    driver,
    workspace,
    log: () => readLines<{ event: string }>(log),
    wire: () => readLines<{ received: string }>(wire).map((entry) => entry.received),
    release,
  };
}

/** Polls a condition the code under test settles in the background (bounded by the test timeout). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("acp: stops", () => {
  it.each(["cancel", "break"] as const)("an agent ignoring session/cancel, stdin end and SIGTERM is escalated to SIGKILL and reaped (%s)", async (how) => {
    const fixture = fake();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const stream = agent.stream("STUBBORN");
      const afterStop: AgentEvent[] = [];
      let deltas = 0;
      let pid: number | undefined;
      let stopped = false;
      for await (const event of stream) {
        if (stopped) {
          afterStop.push(event);
          continue;
        }
        if (event.type === "message.delta" && ++deltas === 20) {
          pid = fixture.driver.processes().live[0];
          stopped = true;
          if (how === "break") break;
          stream.cancel("enough");
        }
      }
      await expect(stream.result).rejects.toBeInstanceOf(RunCancelledError);
      // The loop ended only once the driver had stopped the agent: by then its group is gone.
      expect(pid).toBeTypeOf("number");
      expect(fixture.driver.processes().live).toEqual([]);
      expect(groupAlive(pid!)).toBe(false);
      // The agent was sent session/cancel first, and SIGTERM reached it and was ignored: only SIGKILL can have ended it.
      expect(fixture.wire()).toContain("session/cancel");
      expect(fixture.log().map((entry) => entry.event)).toContain("sigterm-ignored");
      if (how === "cancel") {
        expect(afterStop.filter((event) => event.type === "message.delta")).toEqual([]);
        expect(afterStop.at(-1)?.type).toBe("run.cancelled");
      }
    } finally {
      await agent.close();
    }
  });

  it("answers a pending permission request cancelled before session/cancel reaches the agent", async () => {
    const fixture = fake();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const stream = agent.stream("HANGING_APPROVAL", {
        onApproval: (_request, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny" }), { once: true })),
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "approval.requested") stream.cancel("stop");
      }
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expect(fixture.wire()).toEqual(["permission:cancelled", "session/cancel"]);
    } finally {
      await agent.close();
    }
  });
});

describe("acp: a finished turn does not wait for its process", () => {
  it("publishes run.completed while the finished turn's process still runs, and close() leaves no process", async () => {
    const fixture = fake();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const result = await agent.run("LINGER hello");
      expect(result.status).toBe("completed");
      // The agent exits only once released, which has not happened yet: the result did not wait for it.
      const { live, started } = fixture.driver.processes();
      expect(started).toBe(1);
      expect(live).toHaveLength(1);
      expect(groupAlive(live[0]!)).toBe(true);
      await agent.close();
      expect(fixture.driver.processes().live).toEqual([]);
      expect(groupAlive(live[0]!)).toBe(false);
      expect(fixture.log().map((entry) => entry.event)).toContain("sigterm-while-lingering");
    } finally {
      writeFileSync(fixture.release, "");
      await agent.close();
    }
  });

  it("a released process retires on its own after the result, without close()", async () => {
    const fixture = fake();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const result = await agent.run("LINGER hello");
      expect(result.status).toBe("completed");
      const [pid] = fixture.driver.processes().live;
      expect(pid).toBeTypeOf("number");
      writeFileSync(fixture.release, "");
      // Retiring goes on in the background; the driver reports the process gone once it exited.
      await waitFor(() => fixture.driver.processes().live.length === 0);
      expect(groupAlive(pid!)).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
