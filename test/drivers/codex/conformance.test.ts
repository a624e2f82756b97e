/**
 * The driver conformance kit against the fake `codex app-server`, with every failure fixture: a
 * missing executable, a provider that needs an OpenAI sign-in, an unknown method
 * (`account/rateLimits/read`), a malformed `model/list` page, run model parity, no rollout file or
 * MCP server from inspect/prepare, and a canary key the fake echoes on stderr and in its error.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { codex, type CodexConfig, type CodexDriver } from "../../../src/drivers/codex/index.js";
import { runDriverConformance } from "../../../src/testing/conformance.js";
import { readFakeLog, writeFakeCodex } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "codex-conformance-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const executable = writeFakeCodex(root);
const workspace = join(root, "workspace");
const home = join(root, "home");
const log = join(root, "log.jsonl");
mkdirSync(workspace, { recursive: true });
const CANARY_KEY = "sk-canary-codex-5d2f8a61e0";

const fake = (mode = "", extra: CodexConfig = {}) => codex({ executable, home, ...extra, env: { FAKE_CODEX_MODE: mode, FAKE_CODEX_LOG: log, ...extra.env } });

/** The model the last turn's thread was started with (thread/start params, else the process's `-c model=`). */
function modelOfLastTurn(): string | undefined {
  const entries = readFakeLog(log);
  const turn = entries.filter((e) => e.event === "request" && e.method === "turn/start").at(-1);
  const started = entries.filter((e) => e.event === "request" && e.method === "thread/start" && e.pid === turn?.pid).at(-1);
  if (typeof started?.params?.model === "string") return started.params.model;
  const args = entries.find((e) => e.event === "spawn" && e.pid === turn?.pid)?.args ?? [];
  const override = args.find((a) => a.startsWith("model="));
  return override === undefined ? undefined : (JSON.parse(override.slice("model=".length)) as string);
}

describe("codex driver on a fake app-server: conformance", () => {
  runDriverConformance(() => fake(), {
    runner: { describe, it },
    agentOptions: { workspace },
    textRun: { prompt: "say hello", expectText: "Hello from fake codex." },
    cancellableRun: { prompt: "HANG until cancelled" },
    livePids: (driver) => (driver as CodexDriver).processes().live,
    timeoutMs: 30_000,
    missingExecutable: () => codex({ executable: join(root, "no-such-codex"), home }),
    authRequired: { makeDriver: () => fake("needs-auth") },
    unsupportedMethod: { makeDriver: () => fake("no-rate-limits"), panel: "quota" },
    malformedInspect: { makeDriver: () => fake("malformed-models"), panel: "models" },
    parity: { model: "fake-large", received: modelOfLastTurn },
    conversationDirs: [join(home, "sessions")],
    mcpServers: true,
    canary: {
      secret: CANARY_KEY,
      makeDriver: () =>
        fake("", {
          provider: { id: "canary", baseUrl: "http://127.0.0.1:9/v1", wireApi: "responses", apiKeyEnv: "CANARY_API_KEY" },
          env: { CANARY_API_KEY: CANARY_KEY, FAKE_CODEX_API_KEY: CANARY_KEY },
        }),
      prompts: ["LEAK the key"],
    },
  });
});
