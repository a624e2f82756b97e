/**
 * Randomized run lifecycles (fast-check, seeded): a break, an abort, an agent.close() or a
 * provider crash (SIGKILL of the provider's process group) at a random stage — before
 * run.started, after the first delta, during an approval, after the completion frame, during
 * retirement — on the fake driver's real child, the fake Codex app-server and real Claude Code on
 * the scripted model server. After each: no process of the provider's groups alive, no run
 * directory left, exactly one terminal event and nothing after it, no key anywhere. The default
 * run is bounded for CI; CHAOS_FULL=1 runs the full count.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Run directories are counted in the temporary directory: keep this suite's own.
const ownTmp = mkdtempSync(join(tmpdir(), "aa-chaos-lifecycles-"));
process.env.TMPDIR = ownTmp;

import { createAgent, input } from "../../src/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { withRealCli, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { laneEnv } from "../drivers/real-lane.js";
import { describeRealCli } from "../real-cli/helpers.js";
import { ApprovalGate, inputDirectories, planOf, runLifecycle, STAGES, type LifecyclePlan, type LifecycleSetup } from "./lifecycle.js";
import { FULL, SEED, writeResults, type ResultRow } from "./support.js";

/** Lifecycles per target: fake child, fake Codex, real Claude Code (host signals: host-signal.test.ts). */
export const LIFECYCLES = FULL ? { fake: 700, codex: 150, claude: 50 } : { fake: 100, codex: 24, claude: 6 };

const CANARY = "sk-chaos-canary-0b7e2d9a41c6f358";

let n = 0;
const dir = (): string => {
  const path = join(ownTmp, `d-${++n}`);
  mkdirSync(path);
  return path;
};
let inputFile: string;
beforeAll(() => {
  inputFile = join(dir(), "notes.txt");
  writeFileSync(inputFile, "the user's file\n");
});
afterAll(() => {
  writeResults("lifecycles", rows);
  rmSync(ownTmp, { recursive: true, force: true });
});

const rows: ResultRow[] = [];
/** Tallies outcomes per target × action × stage for the results table. */
function tally(target: string): { add(plan: LifecyclePlan, outcome: string): void; flush(ms: number): void } {
  const counts = new Map<string, Map<string, number>>();
  return {
    add(plan, outcome) {
      const key = `${plan.action} × ${plan.stage}`;
      const byOutcome = counts.get(key) ?? new Map<string, number>();
      byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
      counts.set(key, byOutcome);
    },
    flush(ms) {
      let total = 0;
      for (const [key, byOutcome] of [...counts].sort()) {
        const count = [...byOutcome.values()].reduce((a, b) => a + b, 0);
        total += count;
        rows.push({ subject: `${target}: ${key}`, count, outcome: [...byOutcome].map(([o, c]) => `${o} ${c}`).join(", ") });
      }
      rows.push({ subject: `${target}: all`, count: total, outcome: "every invariant held", ms });
    },
  };
}

async function lifecycles(target: string, runs: number, stages: readonly (typeof STAGES)[number][], setup: (plan: LifecyclePlan, gate: ApprovalGate) => LifecycleSetup): Promise<void> {
  const table = tally(target);
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(planOf(stages), async (plan) => {
      const gate = new ApprovalGate();
      const { outcome } = await runLifecycle(plan, setup(plan, gate), gate, CANARY);
      table.add(plan, outcome);
    }),
    { seed: SEED, numRuns: runs, endOnFailure: true },
  );
  table.flush(Date.now() - started);
  expect(inputDirectories()).toEqual([]);
}

/** The fake child's turn: deltas, a tool echoing the key, an approval, completion, then a process that retires only when cancelled. */
const FAKE_SCRIPT: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "notice", level: "warning", code: "fake_notice", message: `the provider was given ${CANARY}` } },
    { emit: { type: "message.delta", itemId: "m1", text: "hel" } },
    { deltas: { count: 200, itemId: "m1", text: "l" } },
    { emit: { type: "tool.started", callId: "t1", kind: "command", title: `curl -H "x-api-key: ${CANARY}"` } },
    { approve: { requestId: "a1", kind: "command", summary: `run curl with ${CANARY}`, options: [] } },
    { emit: { type: "tool.completed", callId: "t1", status: "completed", output: "ok" } },
    { emit: { type: "message.completed", itemId: "m1", text: "hello" } },
    { complete: true },
    { waitForAbort: true },
  ],
  text: "hello",
};

describe("chaos: randomized lifecycles", () => {
  it(
    `fake driver's real child: ${LIFECYCLES.fake} lifecycles keep every invariant`,
    async () => {
      await lifecycles("fake child", LIFECYCLES.fake, STAGES, (plan, gate) => {
        const fake = fakeDriver({ process: true, script: FAKE_SCRIPT, inputs: { image: { modes: [] }, file: { modes: ["native"] }, audio: { modes: [] } } });
        // The key is part of the driver's config, as a provider key would be.
        const driver = Object.assign(fake, { secrets: () => [CANARY] });
        const agent = createAgent(driver, { workspace: dir(), defaults: { onApproval: gate.handler } });
        return {
          agent,
          livePids: () => fake.probe.livePids(),
          prompt: "chaos",
          options: plan.withInput ? { inputs: [input.fromPath("file", inputFile)] } : {},
        };
      });
    },
    FULL ? 3_600_000 : 120_000,
  );

  it(
    `fake Codex app-server: ${LIFECYCLES.codex} lifecycles keep every invariant`,
    async () => {
      const fixture = fileURLToPath(new URL("../drivers/codex/fixtures/fake-codex.mjs", import.meta.url));
      const executable = join(dir(), "codex");
      writeFileSync(executable, `#!${process.execPath}\nimport(${JSON.stringify(fixture)});\n`, { mode: 0o755 });
      await lifecycles("fake codex", LIFECYCLES.codex, STAGES, (plan, gate) => {
        const driver = codex({ executable, home: dir(), env: { CHAOS_API_KEY: CANARY, FAKE_CODEX_ECHO_ENV: "CHAOS_API_KEY" } });
        const agent = createAgent(driver, { workspace: dir(), defaults: { onApproval: gate.handler, policy: { approval: "on-request" } } });
        // The fake streams until interrupted (HANG), asks for an approval (APPROVE), or answers at once.
        const prompt = plan.stage === "during_approval" ? "ECHO_KEY APPROVE" : plan.stage === "after_first_delta" || plan.stage === "before_start" ? "ECHO_KEY HANG" : "ECHO_KEY";
        return { agent, livePids: () => driver.processes().live, prompt, options: plan.withInput ? { inputs: [input.fromPath("image", pngFile())] } : {} };
      });
    },
    FULL ? 3_600_000 : 120_000,
  );
});

/** A one-pixel PNG, the input kind Codex takes natively. */
function pngFile(): string {
  const path = join(dir(), "pixel.png");
  writeFileSync(
    path,
    Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082", "hex"),
  );
  return path;
}

describeRealCli("claude", () => {
  it(`real Claude Code: ${LIFECYCLES.claude} lifecycles keep every invariant`, { timeout: FULL ? 3_600_000 : 300_000 }, async () => {
    // A slow, streamed answer: there is time to act after the first delta.
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    await withRealCli("claude", { turns: [{ reply: { text: words }, fault: { dripMs: 15 }, repeat: true }] }, async (ctx: RealCliContext) => {
      await lifecycles("real claude", LIFECYCLES.claude, ["before_start", "after_first_delta", "after_completion", "during_retirement"], (plan, gate) => {
        const driver = claude({
          executable: ctx.executable,
          configDir: ctx.configDir,
          model: ctx.model,
          settingSources: [],
          provider: { baseUrl: ctx.server.url, apiKeyEnv: "CLAUDE_LANE_KEY" },
          env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), CLAUDE_LANE_KEY: CANARY },
        });
        const agent = createAgent(driver, { workspace: ctx.workspace, defaults: { onApproval: gate.handler } });
        return { agent, livePids: () => driver.livePids(), prompt: "chaos: answer at length", options: plan.withInput ? { inputs: [input.fromPath("image", pngFile())] } : {} };
      });
    });
  });
});
