/**
 * Stops and turn completion on real child processes (issue #14 items 3 and 5), against the fake
 * Codex app-server, the fake stream-json CLI and the fake ACP agent:
 * - a provider that ignores the interrupt, its stdin's end and SIGTERM is escalated to SIGKILL
 *   and reaped, and the consumer still reads no delta after its cancel;
 * - a finished turn's result resolves while its process is still running (the fake exits only
 *   once the test releases it, after the test has seen the result), and `close()` then leaves no
 *   process behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { Driver } from "../../src/driver/types.js";
import type { ProcessStats } from "../../src/driver/kit/processes.js";
import { RunCancelledError } from "../../src/errors/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { groupAlive } from "../../src/process/group.js";
import { writeFakeCodex } from "../drivers/codex/harness.js";
import { installFakeCli } from "../drivers/fake-cli/install.js";

const root = mkdtempSync(join(tmpdir(), "stops-"));
const fakeCodex = writeFakeCodex(root);
const fakeCli = await installFakeCli("claude");
const fakeAcpAgent = fileURLToPath(new URL("../drivers/acp/fixtures/fake-agent.mjs", import.meta.url));
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await fakeCli.cleanup();
});

interface Case {
  driver: Driver & { processes(): ProcessStats };
  workspace: string;
  /** What the fake processes logged. */
  log(): { event: string }[];
  /** The file whose existence lets a lingering fake exit. */
  release: string;
  /** What the fake read off its input, in arrival order, where it records it. */
  wire?(): string[];
}

interface Provider {
  name: string;
  stubbornPrompt: string;
  lingerPrompt: string;
  /** The interrupt the fake must have read before it was killed, where its wire is recorded. */
  interruptOnWire?: string;
  /** What a lingering fake logs when `close()` terminates it, where it logs that. */
  lingerTermEvent?: string;
  make(): Case;
}

let n = 0;
function readLog(file: string): { event: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { event: string });
}

const providers: Provider[] = [
  {
    name: "codex app-server",
    stubbornPrompt: "STUBBORN",
    lingerPrompt: "LINGER hello",
    make() {
      const dir = join(root, `codex-${++n}`);
      const workspace = join(dir, "workspace");
      const home = join(dir, "home");
      mkdirSync(workspace, { recursive: true });
      mkdirSync(home, { recursive: true });
      const log = join(dir, "log.jsonl");
      const release = join(dir, "release");
      const driver = codex({ executable: fakeCodex, home, env: { FAKE_CODEX_LOG: log, FAKE_CODEX_RELEASE_FILE: release } });
      return { driver, workspace, log: () => readLog(log), release };
    },
  },
  {
    name: "stream-json (Claude Code)",
    stubbornPrompt: "[[stubborn]]",
    lingerPrompt: "[[linger]] hello",
    make() {
      const dir = join(root, `claude-${++n}`);
      mkdirSync(dir, { recursive: true });
      const log = join(dir, "log.jsonl");
      const release = join(dir, "release");
      const driver = claude({
        executable: fakeCli.executable,
        configDir: fakeCli.configDir,
        env: { ANTHROPIC_API_KEY: "sk-fake-stops-key", FAKE_CLI_LOG: log, FAKE_CLI_RELEASE_FILE: release },
      });
      return { driver, workspace: fakeCli.workspace, log: () => readLog(log), release };
    },
  },
  {
    name: "acp (fake agent)",
    stubbornPrompt: "STUBBORN",
    lingerPrompt: "LINGER hello",
    interruptOnWire: "session/cancel",
    lingerTermEvent: "sigterm-while-lingering",
    make() {
      const dir = join(root, `acp-${++n}`);
      const workspace = join(dir, "workspace");
      mkdirSync(workspace, { recursive: true });
      const log = join(dir, "log.jsonl");
      const wire = join(dir, "wire.jsonl");
      const release = join(dir, "release");
      const driver = acp({ command: process.execPath, args: [fakeAcpAgent], env: { FAKE_ACP_LOG: log, FAKE_ACP_WIRE_LOG: wire, FAKE_ACP_RELEASE_FILE: release } });
      const received = () => readLog(wire).map((entry) => (entry as unknown as { received: string }).received);
      return { driver, workspace, log: () => readLog(log), wire: received, release };
    },
  },
];

describe.each(providers)("$name", (provider) => {
  it.each(["cancel", "break"] as const)("a provider ignoring interrupt, stdin end and SIGTERM is escalated to SIGKILL and reaped (%s)", async (how) => {
    const fixture = provider.make();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const stream = agent.stream(provider.stubbornPrompt);
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
      // The loop ended only once the driver had stopped: by then the group is gone.
      expect(pid).toBeTypeOf("number");
      expect(fixture.driver.processes().live).toEqual([]);
      expect(groupAlive(pid!)).toBe(false);
      const events = fixture.log().map((entry) => entry.event);
      // SIGTERM reached it and was ignored, so only SIGKILL can have ended it.
      expect(events).toContain("sigterm-ignored");
      if (provider.interruptOnWire !== undefined) expect(fixture.wire?.()).toContain(provider.interruptOnWire);
      if (how === "cancel") {
        expect(afterStop.filter((event) => event.type === "message.delta")).toEqual([]);
        expect(afterStop.at(-1)?.type).toBe("run.cancelled");
      }
    } finally {
      await agent.close();
    }
  });

  it("publishes run.completed while the finished turn's process still runs, and close() leaves no process", async () => {
    const fixture = provider.make();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const result = await agent.run(provider.lingerPrompt);
      expect(result.status).toBe("completed");
      // The fake exits only once released, which has not happened yet: the result did not wait for it.
      const { live, started } = fixture.driver.processes();
      expect(started).toBe(1);
      expect(live).toHaveLength(1);
      expect(groupAlive(live[0]!)).toBe(true);
      await agent.close();
      expect(fixture.driver.processes().live).toEqual([]);
      expect(groupAlive(live[0]!)).toBe(false);
      if (provider.lingerTermEvent !== undefined) expect(fixture.log().map((entry) => entry.event)).toContain(provider.lingerTermEvent);
    } finally {
      writeFileSync(fixture.release, "");
      await agent.close();
    }
  });

  it("a released process retires on its own after the result, without close()", async () => {
    const fixture = provider.make();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const result = await agent.run(provider.lingerPrompt);
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

/** Polls a condition the code under test settles in the background (bounded by the test timeout). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
