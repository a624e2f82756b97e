/**
 * Each ACP preset names how to install its agent when the executable is missing, and how to sign
 * in when the agent reports a missing login on `session/new` (the fake ACP agent stands in for it).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claudeAcp, codexAcp, copilot, cursor, gemini, qwen, type AcpPresetOptions } from "../../../src/drivers/acp/index.js";
import type { AcpDriver } from "../../../src/drivers/acp/index.js";
import { AuthRequiredError, ExecutableNotFoundError } from "../../../src/errors/index.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-hints-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });

/** The fake agent behind an executable that ignores the preset's arguments (`--acp`, `acp`). */
const fakeAgent = join(root, "fake-acp-agent");
writeFileSync(fakeAgent, `#!/bin/sh\nexec "${process.execPath}" "${fixture}"\n`);
chmodSync(fakeAgent, 0o755);

const PRESETS: { name: string; make: (options: AcpPresetOptions) => AcpDriver; install: string; login: string }[] = [
  { name: "gemini", make: gemini, install: "npm install -g @google/gemini-cli", login: "run `gemini` and choose a sign-in method with /auth, or set GEMINI_API_KEY" },
  { name: "qwen", make: qwen, install: "npm install -g @qwen-code/qwen-code", login: "run `qwen` and sign in with /auth, or set OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL" },
  { name: "copilot", make: copilot, install: "npm install -g @github/copilot", login: "run `copilot` and sign in with /login, or set GH_TOKEN or GITHUB_TOKEN" },
  { name: "codexAcp", make: codexAcp, install: "npm install -g @zed-industries/codex-acp", login: "run `codex login`, or set OPENAI_API_KEY or CODEX_API_KEY" },
  { name: "claudeAcp", make: claudeAcp, install: "npm install -g @zed-industries/claude-agent-acp", login: "run `claude` and sign in with /login, or set ANTHROPIC_API_KEY" },
  { name: "cursor", make: cursor, install: "curl https://cursor.com/install -fsS | bash", login: "run `agent login`, or set CURSOR_API_KEY" },
];

describe("an ACP preset names its install command and its login", () => {
  for (const preset of PRESETS) {
    it(`${preset.name}: a missing executable rejects with ExecutableNotFoundError naming the path tried and the install command`, async () => {
      const missing = join(root, `no-such-${preset.name}`);
      const agent = createAgent(preset.make({ executable: missing }), { workspace });
      try {
        const error = await agent.run("hello").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ExecutableNotFoundError);
        expect(error).toMatchObject({ code: "executable_not_found", phase: "before_delivery", executable: missing, install: preset.install });
        expect((error as Error).message).toBe(`executable not found: ${missing}; install it with: ${preset.install}`);

        const inspection = await agent.inspect();
        expect(inspection.environment).toMatchObject({
          status: "unavailable",
          reason: { code: "executable_not_found", message: `the provider executable was not found; install it with: ${preset.install}` },
        });
      } finally {
        await agent.close();
      }
    });

    it(`${preset.name}: a missing login on session/new rejects with AuthRequiredError naming the login`, async () => {
      const agent = createAgent(preset.make({ executable: fakeAgent, env: { FAKE_ACP_AUTH_REQUIRED: "1" } }), { workspace });
      try {
        const error = await agent.run("hello").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AuthRequiredError);
        expect(error).toMatchObject({ code: "auth_required", phase: "before_delivery", remedy: preset.login });
        expect((error as Error).message.endsWith(`; ${preset.login}`)).toBe(true);
      } finally {
        await agent.close();
      }
    });
  }
});
