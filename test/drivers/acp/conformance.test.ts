/**
 * The driver conformance kit against the fake ACP agent (built with the SDK's agent side), with
 * every failure fixture: a missing command, a session/new that requires authentication, an
 * advertised auth/status probe the agent does not implement or answers with garbage, run model
 * parity, no session file or MCP server from inspect/prepare, and a canary key the agent echoes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { acp, type AcpDriver } from "../../../src/drivers/acp/index.js";
import { runDriverConformance } from "../../../src/testing/conformance.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-conformance-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, "workspace");
const home = join(root, "home");
const log = join(root, "prompts.jsonl");
mkdirSync(workspace, { recursive: true });
const CANARY_KEY = "sk-canary-acp-93e1b07c5a";

const fake = (env: Record<string, string> = {}) => acp({ command: process.execPath, args: [fixture], env: { FAKE_ACP_HOME: home, FAKE_ACP_LOG: log, ...env } });

/** The model of the session that answered the last prompt, as the agent applied it. */
function modelOfLastPrompt(): string | undefined {
  const prompts = readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; model?: string })
    .filter((entry) => entry.event === "prompt");
  return prompts.at(-1)?.model;
}

describe("acp driver on a fake ACP agent: conformance", () => {
  runDriverConformance(() => fake(), {
    runner: { describe, it },
    agentOptions: { workspace },
    textRun: { prompt: "say hello", expectText: "Hello from the fake agent." },
    cancellableRun: { prompt: "SLOW please" },
    livePids: (driver) => (driver as AcpDriver).processes().live,
    missingExecutable: () => acp({ command: join(root, "no-such-agent") }),
    authRequired: { makeDriver: () => fake({ FAKE_ACP_AUTH_REQUIRED: "1" }), panel: null },
    unsupportedMethod: { makeDriver: () => fake({ FAKE_ACP_AUTH_STATUS: "unknown" }), panel: "auth" },
    malformedInspect: { makeDriver: () => fake({ FAKE_ACP_AUTH_STATUS: "malformed" }), panel: "auth" },
    parity: { model: "fake-c", received: modelOfLastPrompt },
    conversationDirs: [home],
    mcpServers: true,
    canary: { secret: CANARY_KEY, makeDriver: () => fake({ FAKE_ACP_API_KEY: CANARY_KEY }), prompts: ["LEAK now"] },
  });
});
