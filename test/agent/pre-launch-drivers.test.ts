/**
 * Failures before launch on every built-in driver (issue #15 item 8): a missing executable and a
 * missing login reject the run with their own class — never wrapped in `RunFailedError` — stamped
 * with the run's id and `phase: "before_delivery"`, still publishing `run.failed`, and say what to
 * do: the path tried and the install command, or the login command / credential variable.
 * Missing logins run the real CLIs with an empty home and no credentials (no network is needed:
 * each refuses before any model request).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { claudeAcp, codexAcp, copilot, cursor, gemini, qwen } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { AuthRequiredError, ExecutableNotFoundError, RunFailedError } from "../../src/errors/index.js";
import { realCliAvailability, type RealCliName } from "../../src/testing/real-cli/index.js";

const root = mkdtempSync(join(tmpdir(), "aa-pre-launch-drivers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `prompt` on a fresh agent; returns what the stream published and how the run settled. */
async function attempt(driver: Driver): Promise<{ runId: string; events: AgentEvent[]; error: unknown }> {
  const agent = createAgent(driver, { workspace: root });
  try {
    const stream = agent.stream("hello");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const error = await stream.result.then(() => undefined, (e: unknown) => e);
    return { runId: stream.runId, events, error };
  } finally {
    await agent.close();
  }
}

function expectRefusal(outcome: { runId: string; events: AgentEvent[]; error: unknown }, type: new (...args: never[]) => Error, code: string): void {
  expect(outcome.error).toBeInstanceOf(type);
  expect(outcome.error).not.toBeInstanceOf(RunFailedError);
  expect(outcome.error).toMatchObject({ code, runId: outcome.runId, phase: "before_delivery" });
  expect(outcome.events.at(-1)).toMatchObject({ type: "run.failed", error: { code, phase: "before_delivery" } });
}

const INSTALLS: { name: string; make(executable: string): Driver; install: string }[] = [
  { name: "codex", make: (executable) => codex({ executable }), install: "npm install -g @openai/codex" },
  { name: "claude", make: (executable) => claude({ executable }), install: "npm install -g @anthropic-ai/claude-code" },
  { name: "codebuddy", make: (executable) => codebuddy({ executable }), install: "npm install -g @tencent-ai/codebuddy-code" },
  { name: "gemini", make: (executable) => gemini({ executable }), install: "npm install -g @google/gemini-cli" },
  { name: "qwen", make: (executable) => qwen({ executable }), install: "npm install -g @qwen-code/qwen-code" },
  { name: "copilot", make: (executable) => copilot({ executable }), install: "npm install -g @github/copilot" },
  { name: "codex-acp", make: (executable) => codexAcp({ executable }), install: "npm install -g @zed-industries/codex-acp" },
  { name: "claude-agent-acp", make: (executable) => claudeAcp({ executable }), install: "npm install -g @zed-industries/claude-agent-acp" },
  { name: "cursor", make: (executable) => cursor({ executable }), install: "curl https://cursor.com/install -fsS | bash" },
  { name: "pi", make: (executable) => pi({ executable }), install: "npm install -g @mariozechner/pi-coding-agent" },
];

describe("a missing executable rejects as ExecutableNotFoundError naming the path tried and the install command", () => {
  for (const driver of INSTALLS) {
    it(driver.name, async () => {
      const missing = join(root, "bin", `no-such-${driver.name}`);
      const outcome = await attempt(driver.make(missing));
      expectRefusal(outcome, ExecutableNotFoundError, "executable_not_found");
      expect(outcome.error).toMatchObject({ executable: missing, install: driver.install });
      expect((outcome.error as Error).message).toContain(missing);
      expect((outcome.error as Error).message).toContain(driver.install);
    });
  }
});

/** The real CLI's entry, with a home holding no credentials and no credential variables. */
function bare(cli: RealCliName): { executable: string; args: string[]; env: Record<string, string>; dir: string } | undefined {
  const availability = realCliAvailability(cli);
  if (!availability.available) return undefined;
  const { command, prefixArgs } = availability.located;
  const dir = mkdtempSync(join(root, `${cli}-`));
  // TMPDIR is a sibling: Codex refuses a home inside its temp dir.
  const env = { HOME: dir, PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: join(dir, ".config"), TMPDIR: mkdtempSync(join(root, `${cli}-tmp-`)) };
  return { executable: command, args: [...prefixArgs], env, dir };
}

const LOGINS: { cli: RealCliName; make(b: NonNullable<ReturnType<typeof bare>>): Driver; remedy: RegExp }[] = [
  { cli: "codex", make: (b) => codex({ executable: b.executable, home: b.dir, env: b.env }), remedy: /codex login.*CODEX_API_KEY/ },
  { cli: "claude", make: (b) => claude({ executable: b.executable, configDir: join(b.dir, "claude"), env: b.env }), remedy: /\/login.*ANTHROPIC_API_KEY/ },
  { cli: "codex-acp", make: (b) => codexAcp({ executable: b.executable, args: b.args, env: b.env }), remedy: /codex login.*OPENAI_API_KEY/ },
  { cli: "copilot", make: (b) => copilot({ executable: b.executable, args: b.args, env: b.env }), remedy: /\/login.*GH_TOKEN/ },
  { cli: "pi", make: (b) => pi({ executable: b.executable, args: b.args, env: { ...b.env, PI_CODING_AGENT_DIR: join(b.dir, "pi") } }), remedy: /provider\.apiKeyEnv|sign Pi in/ },
];

describe("a missing login on the real CLI rejects as AuthRequiredError naming the login or the variable", () => {
  for (const login of LOGINS) {
    const b = bare(login.cli);
    it.skipIf(b === undefined)(login.cli, { timeout: 120_000 }, async () => {
      const outcome = await attempt(login.make(b!));
      expectRefusal(outcome, AuthRequiredError, "auth_required");
      expect((outcome.error as AuthRequiredError).remedy).toMatch(login.remedy);
    });
  }
});
