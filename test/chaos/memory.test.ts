/**
 * Host memory through a whole run on every driver family: mid-turn the provider writes bulk
 * 1 KB frames (400 MB in the full run, 40 MB in the default run) and then finishes its turn. The
 * host's RSS after a full collection may grow by less than 64 MiB; the peak seen while the frames
 * stream is reported too. (test/process/memory.test.ts measures each reading path on its own.)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent, type Driver } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { installFakeCli, type FakeCli } from "../drivers/fake-cli/install.js";
import { writeHostileProvider } from "./hostile.js";
import { FULL, writeResults, type ResultRow } from "./support.js";

const FRAMES = FULL ? 400_000 : 40_000;
const MAX_GROWTH_MIB = 64;

const root = mkdtempSync(join(tmpdir(), "aa-chaos-memory-"));
let cli: FakeCli;
beforeAll(async () => {
  cli = await installFakeCli("claude");
});
const rows: ResultRow[] = [];
afterAll(async () => {
  writeResults("memory", rows);
  await cli?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
const dir = (): string => {
  const path = join(root, `d-${++n}`);
  mkdirSync(path);
  return path;
};
const fixture = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function bulk(command: string, args: string[], name: string, trigger: string): string {
  return writeHostileProvider(dir(), name, { condition: "bulk_frames", command, args, trigger, keyEnv: "UNUSED", pidFile: join(dir(), "pid"), bulkFrames: FRAMES });
}

function rssMiB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().rss / 2 ** 20;
}

const FAMILIES: { name: string; driver: () => Driver; workspace: () => string }[] = [
  { name: "codex", driver: () => codex({ executable: bulk(process.execPath, [fixture("../drivers/codex/fixtures/fake-codex.mjs")], "codex", '"turn/started"'), home: dir() }), workspace: dir },
  { name: "stream-json (claude)", driver: () => claude({ executable: bulk(cli.executable, [], "claude", '"message_start"'), configDir: cli.configDir }), workspace: () => cli.workspace },
  { name: "acp", driver: () => acp({ command: bulk(process.execPath, [fixture("../drivers/acp/fixtures/fake-agent.mjs")], "fake-acp-agent", '"agent_message_chunk"') }), workspace: dir },
];

describe("chaos: host memory under bulk provider output", () => {
  it.each(FAMILIES)(
    `$name: host RSS grows by less than ${MAX_GROWTH_MIB} MiB through ${FRAMES / 1000} MB of frames`,
    async ({ name, driver, workspace }) => {
      const agent = createAgent(driver(), { workspace: workspace() });
      const before = rssMiB();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 2 ** 20)), 25);
      const started = Date.now();
      let last: AgentEvent | undefined;
      try {
        for await (const event of agent.stream("say hello")) last = event;
      } finally {
        clearInterval(sampler);
        await agent.close();
      }
      const growth = rssMiB() - before;
      rows.push({ subject: `${name}: ${FRAMES / 1000} MB of 1 KB frames mid-turn`, count: FRAMES, outcome: `${last?.type}; RSS after GC ${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MiB, peak +${(peak - before).toFixed(1)} MiB`, ms: Date.now() - started });
      expect(last?.type).toBe("run.completed");
      expect(growth).toBeLessThan(MAX_GROWTH_MIB);
    },
    FULL ? 600_000 : 60_000,
  );
});
