/**
 * The OpenAI-compatible driver against a bare `openai` client, both streaming the same scripted
 * answer from the scripted model server:
 *
 *   npm run bench -- openai [--runs 40] [--warmup 5] [--deltas 100000] [--api chat|responses]
 *
 * 1. Per-turn overhead: `agent.run()` of a one-message turn (built-in tools offered, the
 *    conversation written to its stateDir) against the bare client sending the same request
 *    (system prompt and tool schemas) and streaming the same answer, chunks iterated. Both
 *    include core's share of a run on the driver side. Target: driver ÷ bare ≤ 1.05 at p50.
 * 2. Throughput: an answer of `--deltas` one-character deltas, as `message.delta` events read
 *    from `agent.stream()` per second against the bare client's chunks per second.
 *    Target: driver ÷ bare ≥ 0.8.
 *
 * Samples alternate between the sides so drifting load hits both alike. The last line printed is
 * one JSON object with the figures.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import OpenAI from "openai";

import { createAgent } from "../src/index.js";
import { openai } from "../src/drivers/openai/index.js";
import { systemPrompt } from "../src/drivers/openai/instructions.js";
import { builtinTools } from "../src/drivers/openai/tools/index.js";
import { chatParams } from "../src/drivers/openai/wire/chat.js";
import { responsesParams } from "../src/drivers/openai/wire/responses.js";
import type { ModelRequest } from "../src/drivers/openai/wire/types.js";
import { startModelServer, type ModelServer } from "../src/testing/model-server/index.js";
import { formatLoad, int, median, percentile } from "./stats.js";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const runs = Number(option("runs", "40"));
const warmup = Number(option("warmup", "5"));
const deltas = Number(option("deltas", "100000"));
const api = option("api", "chat") as "chat" | "responses";
const SHORT = "The quick brown fox jumps over the lazy dog. ".repeat(4);

/**
 * The request the driver sends for a one-message turn (its system prompt and built-in tools), so
 * both sides send the same bytes and the difference is the driver's own work.
 */
function sameRequest(prompt: string): ModelRequest {
  const tools = builtinTools().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  return { model: "scripted-model", instructions: systemPrompt({ resources: { tools: [], skills: [], mcp: [] } }, true), messages: [{ role: "user", content: [{ type: "text", text: prompt }] }], tools };
}

/** The bare client: one streamed request, every chunk read; returns how many chunks came. */
async function bareTurn(client: OpenAI, prompt: string): Promise<number> {
  let chunks = 0;
  if (api === "chat") {
    const stream = await client.chat.completions.create(chatParams(sameRequest(prompt)));
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) chunks++;
  } else {
    const stream = await client.responses.create(responsesParams(sameRequest(prompt)));
    for await (const event of stream) if (event.type === "response.output_text.delta") chunks++;
  }
  return chunks;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "bench-openai-"));
  const workspace = join(root, "workspace");
  const server: ModelServer = await startModelServer({
    script: {
      turns: [
        { match: { lastUserTextContains: "LONG" }, reply: { text: "x".repeat(deltas), chunkSize: 1, usage: null }, repeat: true },
        { reply: { text: SHORT, chunkSize: 8 }, repeat: true },
      ],
    },
  });
  const baseURL = `${server.url}/v1`;
  const client = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });
  const { mkdir } = await import("node:fs/promises");
  await mkdir(workspace, { recursive: true });
  const agent = createAgent(openai({ baseURL, api, model: "scripted-model", stateDir: join(root, "state") }), { workspace });
  const load = [loadavg()[0]!];
  try {
    const turn = { bare: [] as number[], driver: [] as number[] };
    for (let i = 0; i < warmup + runs; i++) {
      const sides = i % 2 === 0 ? (["bare", "driver"] as const) : (["driver", "bare"] as const);
      for (const side of sides) {
        const start = performance.now();
        if (side === "bare") await bareTurn(client, "say something");
        else await agent.run("say something");
        if (i >= warmup) turn[side].push(performance.now() - start);
      }
    }
    const rate = { bare: [] as number[], driver: [] as number[] };
    for (let i = 0; i < 4; i++) {
      const sides = i % 2 === 0 ? (["bare", "driver"] as const) : (["driver", "bare"] as const);
      for (const side of sides) {
        const start = performance.now();
        let count = 0;
        if (side === "bare") count = await bareTurn(client, "LONG answer");
        else {
          for await (const event of agent.stream("LONG answer")) if (event.type === "message.delta") count++;
        }
        const seconds = (performance.now() - start) / 1000;
        if (i > 0) rate[side].push(count / seconds);
      }
    }
    load.push(loadavg()[0]!);
    const turnRatio = median(turn.driver) / median(turn.bare);
    const rateRatio = median(rate.driver) / median(rate.bare);
    console.log(`openai bench (${api}), load ${formatLoad(load)}`);
    console.log(`per-turn p50: driver ${median(turn.driver).toFixed(2)} ms, bare ${median(turn.bare).toFixed(2)} ms → ratio ${turnRatio.toFixed(3)} (target ≤ 1.05); p90 ${percentile(turn.driver, 90).toFixed(2)} / ${percentile(turn.bare, 90).toFixed(2)} ms`);
    console.log(`throughput: driver ${int(median(rate.driver))} events/s, bare ${int(median(rate.bare))} chunks/s → ratio ${rateRatio.toFixed(3)} (target ≥ 0.8)`);
    console.log(JSON.stringify({ api, runs, deltas, load, turnP50: { driver: median(turn.driver), bare: median(turn.bare), ratio: turnRatio }, rate: { driver: median(rate.driver), bare: median(rate.bare), ratio: rateRatio } }));
  } finally {
    await agent.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
