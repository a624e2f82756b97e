/**
 * The openai() driver against a real llama.cpp `llama-server`, in both wire APIs: one turn,
 * streamed, completed, with usage. Skipped unless AGENT_ADAPTOR_LIVE_LLAMA is set, to either
 * - the directory made by `node scripts/local-llama.mjs DIR` (the test starts the server from it
 *   on a free loopback port with the tiny random-weight model, and stops it), or
 * - the base URL of a server already running (e.g. http://127.0.0.1:8080/v1); the model name is
 *   then AGENT_ADAPTOR_LIVE_LLAMA_MODEL (default "tiny-llama").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent } from "../../../src/index.js";
import { openai } from "../../../src/drivers/openai/index.js";

const live = process.env.AGENT_ADAPTOR_LIVE_LLAMA;
const model = process.env.AGENT_ADAPTOR_LIVE_LLAMA_MODEL ?? "tiny-llama";

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts llama-server from a setup directory; resolves once /health answers 200. */
async function startServer(dir: string): Promise<{ baseURL: string; child: ChildProcess }> {
  const binary = join(dir, "llama.cpp", "build", "bin", "llama-server");
  const template = join(dir, "llama.cpp", "models", "templates", "Qwen-Qwen2.5-7B-Instruct.jinja");
  const weights = join(dir, "tiny-llama.gguf");
  for (const path of [binary, template, weights]) if (!existsSync(path)) throw new Error(`${path} is missing: run node scripts/local-llama.mjs ${dir}`);
  const port = await freePort();
  const args = ["-m", weights, "--alias", model, "--jinja", "--chat-template-file", template, "--host", "127.0.0.1", "--port", String(port), "-c", "32768", "-n", "64"];
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  const origin = `http://127.0.0.1:${port}`;
  // Loading the 1.6 MB model takes well under a second; the bound only ends a server that never comes up.
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}:\n${stderr}`);
    const ok = await fetch(`${origin}/health`).then((r) => r.ok, () => false);
    if (ok) return { baseURL: `${origin}/v1`, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`llama-server did not become healthy:\n${stderr}`);
}

describe.skipIf(live === undefined || live === "")("openai driver against a real llama-server", () => {
  const root = mkdtempSync(join(tmpdir(), "openai-live-llama-"));
  let baseURL = live ?? "";
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    if (!/^https?:\/\//.test(baseURL)) ({ baseURL, child } = await startServer(baseURL));
  });
  afterAll(() => {
    child?.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  for (const api of ["chat", "responses"] as const) {
    it(`streams one completed turn (${api})`, async () => {
      const agent = createAgent(openai({ baseURL, api, model, stateDir: join(root, `state-${api}`), maxOutputTokens: 24 }), { workspace: root });
      try {
        const stream = agent.stream("Say hello.");
        const events: AgentEvent[] = [];
        for await (const event of stream) events.push(event);
        const result = await stream.result;

        const terminal = events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled");
        expect(terminal.map((e) => e.type)).toEqual(["run.completed"]);
        const deltas = events.flatMap((e) => (e.type === "message.delta" ? [e.text] : []));
        expect(deltas.length).toBeGreaterThan(1);
        expect(result.text).toBe(deltas.join(""));
        expect(result.text.length).toBeGreaterThan(0);
        expect(result.usage?.output_tokens).toBeGreaterThan(0);
        expect(result.usage?.input_tokens).toBeGreaterThan(0);
      } finally {
        await agent.close();
      }
    }, 120_000);
  }
});
