/**
 * A provider that closes its stdout but stays alive can never answer again: the process layer
 * stops it (OUTPUT_CLOSED_EXIT_MS after end of file) so every driver's run fails with a typed
 * error instead of waiting forever. Each driver is tested on its fake behind a tiny executable
 * that relays the fake's output and closes stdout, still running, after a given line.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAgent } from "../../src/agent/agent.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { readJsonLines, spawnProcess } from "../../src/process/index.js";
import { installFakeCli, type FakeCli } from "../drivers/fake-cli/install.js";
import { isAlive } from "./helpers.js";

/** Without the fix a run waits forever: the test timeout is the failure. */
const TIMEOUT_MS = 20_000;

const root = mkdtempSync(join(tmpdir(), "dead-pipe-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Writes an executable that runs `command args...` (plus its own arguments), relays the output
 * line by line and, after relaying the first line containing `after`, closes stdout and idles.
 */
function closesStdoutAfter(name: string, after: string, command: string, args: string[]): string {
  const path = join(root, name);
  writeFileSync(
    path,
    `#!${process.execPath}
const { spawn } = require("node:child_process");
const { closeSync, writeSync } = require("node:fs");
const child = spawn(${JSON.stringify(command)}, [...${JSON.stringify(args)}, ...process.argv.slice(2)], { stdio: ["inherit", "pipe", "inherit"] });
let buffered = "";
let closed = false;
child.stdout.on("data", (chunk) => {
  buffered += chunk;
  let nl;
  while (!closed && (nl = buffered.indexOf("\\n")) >= 0) {
    const line = buffered.slice(0, nl + 1);
    buffered = buffered.slice(nl + 1);
    writeSync(1, line);
    if (line.includes(${JSON.stringify(after)})) {
      closeSync(1);
      closed = true;
    }
  }
});
setInterval(() => {}, 1 << 30);
`,
  );
  chmodSync(path, 0o755);
  return path;
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("a provider that closes stdout but stays alive", () => {
  it(
    "is stopped once its output ended, and its exit says so",
    async () => {
      const child = await spawnProcess({ command: "/bin/sh", args: ["-c", 'echo "{\\"hello\\":1}"; exec 1>&-; exec sleep 600'] });
      const lines = [];
      for await (const line of readJsonLines(child.stdout)) lines.push(line);
      expect(lines).toEqual([{ kind: "json", value: { hello: 1 } }]);
      const exit = await child.exited;
      expect(exit).toMatchObject({ code: null, signal: "SIGTERM", outputClosed: true });
      await child.stop();
      expect(isAlive(child.pid)).toBe(false);
    },
    TIMEOUT_MS,
  );

  it(
    "fails a codex run with provider_exited instead of waiting forever",
    async () => {
      const fixture = fileURLToPath(new URL("../drivers/codex/fixtures/fake-codex.mjs", import.meta.url));
      const executable = closesStdoutAfter("codex", '"turn/started"', process.execPath, [fixture]);
      const home = join(root, "codex-home");
      const workspace = join(root, "codex-workspace");
      mkdirSync(home, { recursive: true });
      mkdirSync(workspace, { recursive: true });
      const driver = codex({ executable, home });
      const agent = createAgent(driver, { workspace });
      try {
        const events = await collect(agent.stream("say hello"));
        expect(events.filter((e) => e.type === "run.failed")).toHaveLength(1);
        expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_exited", phase: "after_delivery" } });
        expect((events.at(-1) as { error: { message: string } }).error.message).toContain("closed its output");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    },
    TIMEOUT_MS,
  );

  describe("claude", () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli("claude");
    });
    afterAll(() => fake.cleanup());

    it(
      "fails a claude run with provider_exited instead of waiting forever",
      async () => {
        const executable = closesStdoutAfter("claude", '"message_start"', fake.executable, []);
        const driver = claude({ executable, configDir: fake.configDir, env: { ANTHROPIC_API_KEY: "sk-fake-claude-key-0123456789" } });
        const agent = createAgent(driver, { workspace: fake.workspace });
        try {
          const events = await collect(agent.stream("say hello"));
          expect(events.filter((e) => e.type === "run.failed")).toHaveLength(1);
          expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_exited", phase: "after_delivery" } });
          expect((events.at(-1) as { error: { message: string } }).error.message).toContain("closed its output");
        } finally {
          await agent.close();
        }
        expect(driver.livePids()).toEqual([]);
      },
      TIMEOUT_MS,
    );
  });
});
