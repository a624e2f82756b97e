/**
 * No provider process outlives a host killed by SIGKILL (as by the OOM killer): nothing runs in
 * the host then, so the group reaper does it. Each test SIGKILLs a real host process mid-turn and
 * then checks, by scanning /proc until a 1 s deadline, that no process of the provider's groups
 * is left (a bound, not a speed measurement).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ModelScript } from "../../src/testing/model-server/index.js";
import { withRealCli } from "../../src/testing/real-cli/index.js";
import { laneEnv } from "../drivers/real-lane.js";
import { groupMembers } from "../chaos/processes.js";
import { describeRealCli } from "../real-cli/helpers.js";
import { firstLine, isAlive } from "./helpers.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const JITI = join(REPO, "node_modules/.bin/jiti");
const BOUND_MS = 1000;


/** SIGKILLs `host`, then returns the group members still running when the bound elapsed (or earlier, once none is). */
async function survivorsAfterHostKill(host: ChildProcess, pgids: readonly number[]): Promise<number[]> {
  const exited = new Promise((resolve) => host.once("exit", resolve));
  host.kill("SIGKILL");
  await exited;
  const deadline = Date.now() + BOUND_MS;
  let left = groupMembers(pgids);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = groupMembers(pgids);
  }
  return left;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orphan-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts a TypeScript host script (run from the sources) and resolves with the JSON line it prints. */
async function startHost<T>(name: string, source: string, env: Record<string, string> = {}): Promise<{ host: ChildProcess; report: T }> {
  const file = join(dir, name);
  writeFileSync(file, source);
  const host = spawn(JITI, [file], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } });
  const report = JSON.parse(await firstLine(host.stdout!)) as T;
  return { host, report };
}

const src = (path: string) => JSON.stringify(join(REPO, "src", path));

describe("a SIGKILLed host leaves no provider process", () => {
  it("kills a stubborn child and its grandchild (own process group) within 1 s", async () => {
    const { STUBBORN_PARENT } = await import("./helpers.js");
    const { host, report } = await startHost<{ child: number; grandchild: number }>(
      "stubborn-host.ts",
      `
      import { spawnProcess } from ${src("process/index.js")};
      const child = await spawnProcess({ command: process.execPath, args: ["-e", ${JSON.stringify(STUBBORN_PARENT)}] });
      let buffered = "";
      child.stdout.on("data", (chunk) => {
        buffered += chunk;
        if (buffered.includes("\\n")) process.stdout.write(buffered.slice(0, buffered.indexOf("\\n") + 1));
      });
      setInterval(() => {}, 1000);
      `,
    );
    try {
      expect(groupMembers([report.child]).sort()).toEqual([report.child, report.grandchild].sort());
      expect(await survivorsAfterHostKill(host, [report.child])).toEqual([]);
    } finally {
      host.kill("SIGKILL");
    }
  });

  it("kills the fake driver's child mid-turn within 1 s", async () => {
    const { host, report } = await startHost<{ pids: number[] }>(
      "fake-driver-host.ts",
      `
      import { createAgent } from ${src("agent/agent.js")};
      import { fakeDriver } from ${src("testing/fake-driver/driver.js")};
      const driver = fakeDriver({ process: true, script: { steps: [{ markDelivered: true }, { waitForAbort: true }] } });
      const agent = createAgent(driver);
      const reported = setInterval(() => {
        const pids = driver.probe.livePids();
        if (pids.length === 0) return;
        clearInterval(reported);
        process.stdout.write(JSON.stringify({ pids }) + "\\n");
      }, 20);
      for await (const _ of agent.stream("hold the turn"));
      `,
    );
    try {
      expect(report.pids.length).toBe(1);
      expect(groupMembers(report.pids).length).toBeGreaterThan(0);
      expect(await survivorsAfterHostKill(host, report.pids)).toEqual([]);
    } finally {
      host.kill("SIGKILL");
    }
  });
});

describe("the group reaper", () => {
  it("exits once no group is live, and never keeps the host alive", async () => {
    const { host, report } = await startHost<{ reaper: number }>(
      "drain-host.ts",
      `
      import { spawnProcess } from ${src("process/index.js")};
      import { reaperPid } from ${src("process/reaper.js")};
      const child = await spawnProcess({ command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] });
      process.stdout.write(JSON.stringify({ reaper: reaperPid() }) + "\\n");
      await child.stop();
      // Nothing left to do: the host must now exit on its own.
      `,
    );
    expect(report.reaper).toBeGreaterThan(0);
    expect(await new Promise((resolve) => host.once("exit", resolve))).toBe(0);
    await expect.poll(() => isAlive(report.reaper), { timeout: 10_000 }).toBe(false);
  });
});

describeRealCli("claude", () => {
  it("kills real Claude Code mid-turn (model stream open) within 1 s of the host's death", async () => {
    // The model answers only after a minute: the CLI is mid-turn, waiting on the stream, when the host dies.
    const script: ModelScript = { turns: [{ match: { lastUserTextContains: "orphan" }, reply: { text: "Too late." }, fault: { delayMs: 60_000 } }] };
    await withRealCli("claude", script, async (ctx) => {
      const config = {
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: "CLAUDE_LANE_KEY" },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), CLAUDE_LANE_KEY: "sk-claude-lane-key-0123456789" },
      };
      const { host, report } = await startHost<{ pids: number[] }>(
        "claude-host.ts",
        `
        import { createAgent } from ${src("agent/agent.js")};
        import { claude } from ${src("drivers/claude/index.js")};
        const driver = claude(JSON.parse(process.env.ORPHAN_TEST_CONFIG!));
        const agent = createAgent(driver, { workspace: process.env.ORPHAN_TEST_WORKSPACE! });
        const reported = setInterval(() => {
          const pids = driver.livePids();
          if (pids.length === 0) return;
          clearInterval(reported);
          process.stdout.write(JSON.stringify({ pids }) + "\\n");
        }, 20);
        for await (const _ of agent.stream("orphan test: answer slowly"));
        `,
        { ORPHAN_TEST_CONFIG: JSON.stringify(config), ORPHAN_TEST_WORKSPACE: ctx.workspace },
      );
      try {
        expect(report.pids.length).toBe(1);
        // Mid-turn: the CLI's model request has reached the server and is being held.
        await expect.poll(() => ctx.server.requests.some((r) => r.dialect === "anthropic" && !r.auxiliary), { timeout: 60_000 }).toBe(true);
        expect(groupMembers(report.pids).length).toBeGreaterThan(0);
        expect(await survivorsAfterHostKill(host, report.pids)).toEqual([]);
      } finally {
        host.kill("SIGKILL");
      }
    });
  });
});
