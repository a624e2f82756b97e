/**
 * Core's own cost per run, without any I/O: `agent.run()` over a driver whose turn is a loop of
 * `--deltas` text deltas (each awaited, as a streaming driver awaits its next chunk) and one
 * completed message, against the same loop run bare (no agent). The difference is what core adds
 * to every turn: settings, the run's timeline, sink, watchdogs, stream and terminal.
 *
 *   node --expose-gc dist-bench/bench/core-turn.js [--runs 20000] [--deltas 23] [--rounds 5]
 *
 * Sides alternate in rounds of `--runs` runs so drifting load hits both alike; reported per run:
 * CPU µs and wall µs (medians over rounds). `--only core` runs the core side alone (for a CPU
 * profile with `node --cpu-prof`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import type { Driver, EventSink, RunRequest, RunResponse } from "../src/driver/types.js";
import { createAgent } from "../src/index.js";
import { openai } from "../src/drivers/openai/index.js";
import { formatLoad, median } from "./stats.js";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const runs = Number(option("runs", "20000"));
const deltas = Number(option("deltas", "23"));
const rounds = Number(option("rounds", "5"));
const only = option("only", "");
const CHUNK = "The quick";

/** The driver's turn without core: every delta awaited as a chunk would be. */
async function turn(onText: (text: string) => Promise<void> | undefined): Promise<string> {
  let text = "";
  for (let i = 0; i < deltas; i++) {
    text += CHUNK;
    await onText(CHUNK);
  }
  return text;
}

const bareSink = (): undefined => undefined;

function minimalDriver(like: Driver): Driver {
  return {
    // The openai driver's descriptor, as bench/openai.ts's core side has; nothing else of it runs.
    descriptor: () => like.descriptor(),
    validateConfig: () => {},
    inspect: (request, signal) => like.inspect(request, signal),
    prepare: (request, signal) => like.prepare(request, signal),
    close: async () => {},
    async run(request: RunRequest, sink: EventSink): Promise<RunResponse> {
      request.markDelivered();
      const text = await turn((delta) => sink.emit({ type: "message.delta", itemId: "msg_1", text: delta }));
      await sink.emit({ type: "message.completed", itemId: "msg_1", text, provenance: { provider: "openai" } });
      return { text };
    },
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "bench-core-turn-"));
  const like = openai({ baseURL: "http://127.0.0.1:9/v1", model: "scripted-model", stateDir: join(root, "state") });
  const agent = createAgent(minimalDriver(like), { workspace: root });
  const load = [loadavg()[0]!];
  const cpu = { core: [] as number[], bare: [] as number[] };
  const wall = { core: [] as number[], bare: [] as number[] };
  try {
    for (let i = 0; i < 200; i++) await agent.run("say something");
    for (let round = 0; round < rounds; round++) {
      const sides = only === "core" ? (["core"] as const) : round % 2 === 0 ? (["core", "bare"] as const) : (["bare", "core"] as const);
      for (const side of sides) {
        globalThis.gc?.();
        const startCpu = process.cpuUsage();
        const start = performance.now();
        for (let i = 0; i < runs; i++) {
          if (side === "core") {
            const result = await agent.run("say something");
            if (result.text.length !== deltas * CHUNK.length) throw new Error("core-turn: wrong text");
          } else await turn(bareSink);
        }
        const elapsed = performance.now() - start;
        const used = process.cpuUsage(startCpu);
        cpu[side].push(((used.user + used.system) / runs));
        wall[side].push((elapsed * 1000) / runs);
      }
    }
    load.push(loadavg()[0]!);
    console.log(`core-turn bench (${deltas} deltas per run, ${runs} runs × ${rounds} rounds), load ${formatLoad(load)}`);
    console.log(`core side: CPU ${median(cpu.core).toFixed(1)} µs/run, wall ${median(wall.core).toFixed(1)} µs/run`);
    if (only !== "core") {
      console.log(`bare loop: CPU ${median(cpu.bare).toFixed(1)} µs/run, wall ${median(wall.bare).toFixed(1)} µs/run`);
      console.log(`core adds: CPU ${(median(cpu.core) - median(cpu.bare)).toFixed(1)} µs/run`);
    }
    console.log(JSON.stringify({ deltas, runs, rounds, load, cpu: { core: median(cpu.core), bare: median(cpu.bare) }, wall: { core: median(wall.core), bare: median(wall.bare) } }));
  } finally {
    await agent.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
