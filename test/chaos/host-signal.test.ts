/**
 * Randomized host deaths: a real host process (the TypeScript sources run by jiti) drives the fake
 * driver's real child to a random stage — before run.started, after the first delta, during an
 * approval, after the completion frame, during retirement — with or without a per-run input, and
 * is then sent SIGTERM, SIGINT, SIGHUP or SIGKILL. Afterwards: no process of the provider's group
 * is alive within 1 s, the run directory is gone (after SIGKILL it stays until a later start
 * sweeps it, which test/input/exit.test.ts covers), and the host printed no key.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

import { firstLine } from "../process/helpers.js";
import { STAGES } from "./lifecycle.js";
import { groupMembers } from "./processes.js";
import { FULL, SEED, writeResults, type ResultRow } from "./support.js";

export const HOST_LIFECYCLES = FULL ? 100 : 8;
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"] as const;
const BOUND_MS = 1000;
const CANARY = "sk-chaos-canary-5d1c8e07a9b34f62";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const JITI = join(REPO, "node_modules/.bin/jiti");
const root = mkdtempSync(join(tmpdir(), "aa-chaos-hosts-"));
const rows: ResultRow[] = [];
afterAll(() => {
  writeResults("host-signal", rows);
  rmSync(root, { recursive: true, force: true });
});

const src = (path: string) => JSON.stringify(join(REPO, "src", path));
const HOST = join(root, "host.ts");
writeFileSync(
  HOST,
  `
import { createAgent, input } from ${src("index.js")};
import { fakeDriver } from ${src("testing/index.js")};
const stage = process.env.CHAOS_STAGE!;
const key = process.env.CHAOS_KEY!;
const fake = fakeDriver({
  process: true,
  inputs: { image: { modes: [] }, file: { modes: ["native"] }, audio: { modes: [] } },
  script: {
    steps: [
      { markDelivered: true },
      { emit: { type: "notice", level: "warning", code: "fake_notice", message: "the provider was given " + key } },
      { emit: { type: "message.delta", itemId: "m1", text: "hel" } },
      { deltas: { count: 200, itemId: "m1", text: "l" } },
      { approve: { requestId: "a1", kind: "command", summary: "run with " + key, options: [] } },
      { emit: { type: "message.completed", itemId: "m1", text: "hello" } },
      { complete: true },
      { waitForAbort: true },
    ],
    text: "hello",
  },
});
const driver = Object.assign(fake, { secrets: () => [key] });
let reported = false;
const report = async () => {
  if (reported) return;
  while (fake.probe.livePids().length === 0) await new Promise((r) => setTimeout(r, 10));
  reported = true;
  process.stdout.write(JSON.stringify({ pids: fake.probe.livePids() }) + "\\n");
};
// An approval stays pending: the host dies while it waits (at the approval stage, or later ones).
const agent = createAgent(driver, { workspace: process.env.CHAOS_WORKSPACE!, defaults: { onApproval: () => (stage === "during_approval" ? new Promise(() => {}) : Promise.resolve({ decision: "allow" })) } });
const inputs = process.env.CHAOS_INPUT ? [input.fromPath("file", process.env.CHAOS_INPUT)] : [];
const stream = agent.stream("chaos", { inputs });
if (stage === "before_start") void report();
for await (const event of stream) {
  if (stage === "after_first_delta" && event.type === "message.delta") await report();
  if (stage === "during_approval" && event.type === "approval.requested") await report();
  if (stage === "after_completion" && event.type === "message.completed") await report();
  if (stage === "during_retirement" && event.type === "message.completed") {
    await new Promise((r) => setTimeout(r, 50));
    await report();
  }
}
setInterval(() => {}, 1 << 30);
`,
);

interface HostPlan {
  stage: (typeof STAGES)[number];
  signal: (typeof SIGNALS)[number];
  withInput: boolean;
}

async function hostLifecycle(plan: HostPlan, index: number): Promise<{ left: number[]; dirsLeft: number; exit: string }> {
  const tmp = mkdtempSync(join(root, `tmp-${index}-`));
  const workspace = mkdtempSync(join(root, `ws-${index}-`));
  const file = join(workspace, "notes.txt");
  writeFileSync(file, "the user's file\n");
  const host = spawn(JITI, [HOST], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: tmp, CHAOS_STAGE: plan.stage, CHAOS_KEY: CANARY, CHAOS_WORKSPACE: workspace, CHAOS_INPUT: plan.withInput ? file : "" },
  });
  let stderr = "";
  host.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) => host.once("exit", (code, signal) => resolve(signal ?? `code ${code}`)));
  try {
    const line = await firstLine(host.stdout!);
    const { pids } = JSON.parse(line) as { pids: number[] };
    expect(groupMembers(pids).length).toBeGreaterThan(0);
    if (plan.withInput) expect(readdirSync(tmp).filter((n) => n.startsWith("agent-adaptor-inputs-"))).toHaveLength(1);
    host.kill(plan.signal);
    const exit = await exited;
    const deadline = Date.now() + BOUND_MS;
    let left = groupMembers(pids);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = groupMembers(pids);
    }
    const dirsLeft = readdirSync(tmp).filter((n) => n.startsWith("agent-adaptor-inputs-")).length;
    expect(stderr + line).not.toContain(CANARY);
    return { left, dirsLeft, exit };
  } finally {
    host.kill("SIGKILL");
  }
}

describe("chaos: host signals", () => {
  it(
    `${HOST_LIFECYCLES} hosts killed by a random signal at a random stage leave no provider process and no run directory`,
    async () => {
      const counts = new Map<string, number>();
      let index = 0;
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(fc.record({ stage: fc.constantFrom(...STAGES), signal: fc.constantFrom(...SIGNALS), withInput: fc.boolean() }), async (plan) => {
          const { left, dirsLeft, exit } = await hostLifecycle(plan, index++);
          expect(exit).toBe(plan.signal);
          expect(left).toEqual([]);
          // SIGKILL leaves nothing running to remove the directory; the next agent start sweeps it.
          expect(dirsLeft).toBe(plan.signal === "SIGKILL" && plan.withInput ? 1 : 0);
          const key = `${plan.signal} × ${plan.stage}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }),
        { seed: SEED, numRuns: HOST_LIFECYCLES, endOnFailure: true },
      );
      for (const [key, count] of [...counts].sort()) rows.push({ subject: `host: ${key}`, count, outcome: "host died of the signal; provider group gone within 1 s; run directory removed (kept after SIGKILL until swept)" });
      rows.push({ subject: "host: all", count: HOST_LIFECYCLES, outcome: "every invariant held", ms: Date.now() - started });
    },
    FULL ? 3_600_000 : 120_000,
  );
});
