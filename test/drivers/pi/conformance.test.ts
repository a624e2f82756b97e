/**
 * The driver conformance kit against `pi()`: on a fake `pi --mode rpc` with every failure fixture
 * (missing executable, no credentials, an unknown command, a malformed answer, model parity, no
 * session file from inspect/prepare, a key the provider echoes), and on the real Pi.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";

import { pi, type PiDriver } from "../../../src/drivers/pi/index.js";
import { runDriverConformance } from "../../../src/testing/conformance.js";
import { startModelServer, type ModelServer } from "../../../src/testing/model-server/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-pi.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "pi-conformance-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, "workspace");
const sessions = join(root, "sessions");
const log = join(root, "prompts.jsonl");
mkdirSync(workspace, { recursive: true });
const CANARY_KEY = "sk-canary-pi-5f2d9e01c4";

const fake = (env: Record<string, string> = {}) => pi({ executable: process.execPath, args: [fixture], sessionDir: sessions, env: { FAKE_PI_LOG: log, ...env } });

function modelOfLastPrompt(): string | undefined {
  const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
  return (JSON.parse(lines.at(-1)!) as { model?: string }).model;
}

describe("pi driver on a fake pi --mode rpc: conformance", () => {
  runDriverConformance(() => fake(), {
    runner: { describe, it },
    agentOptions: { workspace },
    textRun: { prompt: "say hello", expectText: "Hello from the fake pi." },
    cancellableRun: { prompt: "SLOW please" },
    livePids: (driver) => (driver as PiDriver).processes().live,
    missingExecutable: () => pi({ executable: join(root, "no-such-pi") }),
    authRequired: { makeDriver: () => fake({ FAKE_PI_NO_MODELS: "1" }) },
    unsupportedMethod: { makeDriver: () => fake({ FAKE_PI_COMMANDS: "unknown" }), panel: "commands" },
    malformedInspect: { makeDriver: () => fake({ FAKE_PI_MODELS: "malformed" }), panel: "models" },
    parity: { model: "fake-b", received: modelOfLastPrompt },
    conversationDirs: [sessions],
    canary: { secret: CANARY_KEY, makeDriver: () => fake({ FAKE_PI_API_KEY: CANARY_KEY }), prompts: ["LEAK now"] },
  });
});

// The real Pi, bound by the driver to a scripted model server that answers every prompt.
const realRoot = join(root, "real");
const realHome = join(realRoot, "home");
const realWorkspace = join(realRoot, "workspace");
let server: ModelServer | undefined;
afterAll(async () => server?.close());

describeRealCli("pi", (availability) => {
  mkdirSync(realWorkspace, { recursive: true });
  mkdirSync(realHome, { recursive: true });
  const located = availability.located;
  const url = (): string => {
    if (server === undefined) throw new Error("the model server is not started");
    return `${server.url.replace(/\/+$/, "")}/v1`;
  };
  const real = () =>
    pi({
      executable: located.command,
      args: [...located.prefixArgs],
      env: { HOME: realHome, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", SCRIPTED_MODEL_API_KEY: "sk-scripted-dummy", NO_PROXY: "127.0.0.1" },
      sessionDir: join(realRoot, "sessions"),
      provider: { baseUrl: url(), apiKeyEnv: "SCRIPTED_MODEL_API_KEY", model: "scripted-model" },
    });
  describe("pi driver on the real pi: conformance", () => {
    beforeAll(async () => {
      server = await startModelServer({
        script: {
          turns: [{ reply: { text: "Hello from the scripted model." }, repeat: true }],
          // Answered wherever it comes, so the cancellable run never consumes the text turn.
          auxiliary: { rules: [{ match: { lastUserTextContains: "SLOW" }, reply: { text: "word ".repeat(400), chunkSize: 5 }, fault: { dripMs: 40 } }] },
        },
      });
    });
    runDriverConformance(real, {
      runner: { describe, it },
      agentOptions: { workspace: realWorkspace },
      textRun: { prompt: "say hello", expectText: "Hello from the scripted model." },
      cancellableRun: { prompt: "SLOW please" },
      livePids: (driver) => (driver as PiDriver).processes().live,
      conversationDirs: [join(realRoot, "sessions")],
      // Instructions and the skill in the system prompt, the host tool's description among the tools.
      resources: { received: () => JSON.stringify(server!.requests.map((r) => r.body)) },
      timeoutMs: 120_000,
    });
  });
});
