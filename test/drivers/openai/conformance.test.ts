/**
 * The driver conformance kit against `openai()` on the scripted model server, in both wire APIs
 * (Chat Completions and Responses): a missing `openai` package, a missing key, model parity, the
 * conversation directory, MCP servers started only by runs, and a key that never shows.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";

import { openai, type OpenAIDriver } from "../../../src/drivers/openai/index.js";
import { createOpenAIDriver } from "../../../src/drivers/openai/driver.js";
import { runDriverConformance } from "../../../src/testing/conformance.js";
import { startModelServer, type ModelServer } from "../../../src/testing/model-server/index.js";

const root = mkdtempSync(join(tmpdir(), "openai-conformance-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
const CANARY_KEY = "sk-canary-openai-7d3e9a11f0";
process.env.OAI_CONFORMANCE_CANARY_KEY = CANARY_KEY;
delete process.env.OAI_CONFORMANCE_UNSET_KEY;

let server: ModelServer | undefined;
beforeAll(async () => {
  server = await startModelServer({
    script: {
      turns: [{ reply: { text: "Hello from the scripted model." }, repeat: true }],
      auxiliary: { rules: [{ match: { lastUserTextContains: "SLOW" }, reply: { text: "word ".repeat(400), chunkSize: 5 }, fault: { dripMs: 40 } }] },
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const baseURL = (): string => `${server!.url}/v1`;
const missingPackage = () => Promise.reject(Object.assign(new Error("Cannot find package 'openai'"), { code: "ERR_MODULE_NOT_FOUND" }));

for (const api of ["chat", "responses"] as const) {
  const stateDir = join(root, `state-${api}`);
  const make = (extra: Partial<Parameters<typeof openai>[0]> = {}) => openai({ baseURL: baseURL(), api, model: "scripted-model", stateDir, ...extra });
  describe(`openai driver (${api}) on the scripted model server: conformance`, () => {
    runDriverConformance(() => make(), {
      runner: { describe, it },
      agentOptions: { workspace },
      textRun: { prompt: "say hello", expectText: "Hello from the scripted model." },
      cancellableRun: { prompt: "SLOW please" },
      livePids: (driver) => (driver as OpenAIDriver).processes().live,
      missingExecutable: () => createOpenAIDriver({ baseURL: baseURL(), api, model: "scripted-model", stateDir }, { importer: missingPackage }),
      authRequired: { makeDriver: () => make({ apiKeyEnv: "OAI_CONFORMANCE_UNSET_KEY" }) },
      parity: { model: "fake-b", received: () => server!.requests.filter((r) => r.dialect === api).at(-1)?.model },
      conversationDirs: [stateDir],
      mcpServers: true,
      canary: { secret: CANARY_KEY, makeDriver: () => make({ apiKeyEnv: "OAI_CONFORMANCE_CANARY_KEY" }), prompts: ["LEAK now"] },
      resources: { received: () => JSON.stringify(server!.requests.map((r) => r.body)) },
    });
  });
}
