/**
 * The OpenAI-compatible driver against a bare `openai` client, both streaming the same scripted
 * answer from the scripted model server:
 *
 *   npm run bench -- openai [--runs 100] [--warmup 5] [--deltas 100000] [--api chat|responses]
 *
 * 1. Per-turn overhead: `agent.run()` of a one-message turn (built-in tools offered, the
 *    conversation written to its stateDir) against the bare client sending the same request
 *    (system prompt and tool schemas) and streaming the same answer, chunks iterated. The
 *    driver side includes core's share of a run; a third side, `core`, prices that share alone:
 *    `agent.run()` over a minimal driver that streams the bare client's request and emits its
 *    deltas. Target: driver ÷ bare ≤ 1.05 at p50. Also the process's CPU time per turn (the
 *    in-process model server does the same work for every side), steadier under load than wall
 *    time.
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

import type { Driver, EventSink, RunRequest, RunResponse } from "../src/driver/types.js";
import { createAgent } from "../src/index.js";
import { openai } from "../src/drivers/openai/index.js";
import { systemPrompt } from "../src/drivers/openai/instructions.js";
import { builtinTools } from "../src/drivers/openai/tools/index.js";
import { TASK_TOOL } from "../src/drivers/openai/toolbox.js";
import { chatParams } from "../src/drivers/openai/wire/chat.js";
import { responsesParams } from "../src/drivers/openai/wire/responses.js";
import type { ModelRequest } from "../src/drivers/openai/wire/types.js";
import { startModelServer, type ModelServer } from "../src/testing/model-server/index.js";
import { formatLoad, int, median, percentile } from "./stats.js";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const runs = Number(option("runs", "100"));
const warmup = Number(option("warmup", "5"));
const deltas = Number(option("deltas", "100000"));
const api = option("api", "chat") as "chat" | "responses";
const SHORT = "The quick brown fox jumps over the lazy dog. ".repeat(4);

/**
 * The system prompt and tools the driver sends for a one-message turn, so every side sends the
 * same bytes and the difference is the driver's own work. Built once, as a host using the bare
 * client would.
 */
const INSTRUCTIONS = systemPrompt({ resources: { tools: [], skills: [], mcp: [] } }, true);
// The driver offers subagents' `task` tool after the built-in ones by default.
const TOOLS = [...builtinTools().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })), TASK_TOOL];

function sameRequest(prompt: string): ModelRequest {
  return { model: "scripted-model", instructions: INSTRUCTIONS, messages: [{ role: "user", content: [{ type: "text", text: prompt }] }], tools: TOOLS };
}

/** The bare client: one streamed request, every chunk read; `onText` gets each text delta. Returns how many chunks came. */
async function bareTurn(client: OpenAI, prompt: string, onText?: (text: string) => Promise<void> | undefined): Promise<number> {
  let chunks = 0;
  if (api === "chat") {
    const stream = await client.chat.completions.create(chatParams(sameRequest(prompt)));
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (text) {
        chunks++;
        if (onText) await onText(text);
      }
    }
  } else {
    const stream = await client.responses.create(responsesParams(sameRequest(prompt)));
    for await (const event of stream) {
      if (event.type !== "response.output_text.delta") continue;
      chunks++;
      if (onText) await onText(event.delta);
    }
  }
  return chunks;
}

/**
 * Core's share alone: a driver with the openai driver's descriptor whose run is the bare turn,
 * its deltas emitted as `message.delta` and the answer completed. No conversation, tools or loop.
 */
function coreOnly(client: OpenAI, like: Driver): Driver {
  return {
    descriptor: () => like.descriptor(),
    validateConfig: () => {},
    inspect: (request, signal) => like.inspect(request, signal),
    prepare: (request, signal) => like.prepare(request, signal),
    close: async () => {},
    async run(request: RunRequest, sink: EventSink): Promise<RunResponse> {
      request.markDelivered();
      let text = "";
      await bareTurn(client, request.prompt, (delta) => {
        text += delta;
        return sink.emit({ type: "message.delta", itemId: "msg_1", text: delta });
      });
      await sink.emit({ type: "message.completed", itemId: "msg_1", text, provenance: { provider: "openai" } });
      return { text };
    },
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "bench-openai-"));
  const workspace = join(root, "workspace");
  const server: ModelServer = await startModelServer({
    script: {
      // The long answer is a rule, not a turn: a repeating turn stops being current once a request
      // misses it, so after the first short turn every long request would get the short answer.
      auxiliary: { rules: [{ match: { lastUserTextContains: "LONG" }, reply: { text: "x".repeat(deltas), chunkSize: 1, usage: null } }] },
      turns: [{ reply: { text: SHORT, chunkSize: 8 }, repeat: true }],
    },
  });
  const baseURL = `${server.url}/v1`;
  const client = new OpenAI({ baseURL, apiKey: "bench", maxRetries: 0 });
  const { mkdir } = await import("node:fs/promises");
  await mkdir(workspace, { recursive: true });
  const driver = openai({ baseURL, api, model: "scripted-model", stateDir: join(root, "state") });
  const agent = createAgent(driver, { workspace });
  const core = createAgent(coreOnly(client, driver), { workspace });
  const load = [loadavg()[0]!];
  try {
    // The sides must send the same request, or the difference would be the bytes, not the work.
    await bareTurn(client, "say something");
    await agent.run("say something");
    const [bareBody, driverBody] = server.requests.slice(-2).map((r) => JSON.stringify(r.body));
    if (bareBody !== driverBody) throw new Error("bench: the driver's request differs from the bare client's");
    const turn = { bare: [] as number[], core: [] as number[], driver: [] as number[] };
    const cpu = { bare: [] as number[], core: [] as number[], driver: [] as number[] };
    const order = ["bare", "core", "driver"] as const;
    for (let i = 0; i < warmup + runs; i++) {
      // Rotated so each side goes first, second and last equally often.
      const sides = order.map((_, k) => order[(i + k) % order.length]!);
      for (const side of sides) {
        const startCpu = process.cpuUsage();
        const start = performance.now();
        if (side === "bare") await bareTurn(client, "say something");
        else await (side === "core" ? core : agent).run("say something");
        const elapsed = performance.now() - start;
        const used = process.cpuUsage(startCpu);
        if (i >= warmup) {
          turn[side].push(elapsed);
          cpu[side].push((used.user + used.system) / 1000);
        }
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
        if (count !== deltas) throw new Error(`bench: the ${side} side read ${count} deltas, not ${deltas}`);
        if (i > 0) rate[side].push(count / seconds);
      }
    }
    load.push(loadavg()[0]!);
    const turnRatio = median(turn.driver) / median(turn.bare);
    const coreRatio = median(turn.core) / median(turn.bare);
    const cpuRatio = median(cpu.driver) / median(cpu.bare);
    const rateRatio = median(rate.driver) / median(rate.bare);
    console.log(`openai bench (${api}), load ${formatLoad(load)}`);
    console.log(`per-turn p50: driver ${median(turn.driver).toFixed(2)} ms, bare ${median(turn.bare).toFixed(2)} ms → ratio ${turnRatio.toFixed(3)} (target ≤ 1.05); p90 ${percentile(turn.driver, 90).toFixed(2)} / ${percentile(turn.bare, 90).toFixed(2)} ms`);
    console.log(`  core only (minimal driver): ${median(turn.core).toFixed(2)} ms → ratio ${coreRatio.toFixed(3)} to bare`);
    console.log(`  CPU per turn p50: driver ${median(cpu.driver).toFixed(2)} ms, core only ${median(cpu.core).toFixed(2)} ms, bare ${median(cpu.bare).toFixed(2)} ms → driver ÷ bare ${cpuRatio.toFixed(3)}`);
    console.log(`throughput: driver ${int(median(rate.driver))} events/s, bare ${int(median(rate.bare))} chunks/s → ratio ${rateRatio.toFixed(3)} (target ≥ 0.8)`);
    const p50 = (values: Record<"bare" | "core" | "driver", number[]>) => ({ driver: median(values.driver), core: median(values.core), bare: median(values.bare) });
    console.log(JSON.stringify({ api, runs, deltas, load, turnP50: { ...p50(turn), ratio: turnRatio, coreRatio }, cpuP50: { ...p50(cpu), ratio: cpuRatio }, rate: { driver: median(rate.driver), bare: median(rate.bare), ratio: rateRatio } }));
  } finally {
    await core.close();
    await agent.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
