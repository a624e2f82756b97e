/**
 * The Pi driver on the real Pi CLI (`pi --mode rpc`, the pinned devDependency) against the
 * scripted model server's Chat Completions dialect:
 *
 *   npm run bench -- pi [--runs 20] [--warmup 2]
 *
 * 1. Time to first event of a run, cold `run()` against `run()` after `prepare()`. Timed from
 *    `agent.stream()` to `thread.bound` — the first event every Pi run emits (the session id
 *    `get_state` gave, announced once the model is checked), in both paths. The first
 *    `message.delta` is reported too. `prepare()` itself is not timed.
 *    Target: standby ≥ 5× faster (p50 ratio cold ÷ prepared).
 * 2. `agent.inspect()` wall time against a bare handshake in the same run: spawn the same
 *    executable with the same arguments and environment (the provider bound through a
 *    `models.json` written once beforehand), write `get_state`, time to its answer — Pi's
 *    readiness. `inspect()` also asks `get_available_models` and `get_commands`.
 *    Target: inspect ≤ 1.1× the bare handshake (p50 ratio).
 *
 * The scripted server answers every prompt with a short text. Samples alternate between the
 * sides so drifting load hits both alike. The last line printed is one JSON object with the
 * figures.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { BOUND_KEY_ENV, BOUND_PROVIDER, boundModelsJson, type PiConfig, type PiProviderBinding } from "../src/drivers/pi/config.js";
import { pi } from "../src/drivers/pi/index.js";
import { readJsonLines, spawnProcess, writeJsonLine } from "../src/process/index.js";
import { SCRIPTED_KEY_ENV, type RealCliContext } from "../src/testing/real-cli/index.js";

import { runStandbyBench } from "./standby-bench.js";

function providerFor(ctx: RealCliContext): PiProviderBinding {
  return { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model };
}

/** The lane's environment without its own agent directory: the driver binds the provider itself. */
function envFor(ctx: RealCliContext): Record<string, string> {
  const env = { ...ctx.env };
  delete env.PI_CODING_AGENT_DIR;
  return env;
}

function configFor(ctx: RealCliContext): PiConfig {
  return {
    executable: ctx.executable,
    args: ctx.executable === process.execPath ? [ctx.entry] : [],
    env: envFor(ctx),
    sessionDir: join(ctx.root, "bench-sessions"),
    provider: providerFor(ctx),
  };
}

/** The agent directory the bare side uses: the same `models.json` the driver writes, made once. */
async function bareAgentDir(ctx: RealCliContext): Promise<string> {
  const dir = join(ctx.root, "bench-agent");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, "models.json"), JSON.stringify(boundModelsJson(providerFor(ctx), true)), { mode: 0o600 });
  return dir;
}

let agentDir: Promise<string> | undefined;

/** The baseline: the same spawn and one `get_state`, read by hand, nothing else. */
async function timedBareGetState(ctx: RealCliContext): Promise<number> {
  agentDir ??= bareAgentDir(ctx);
  const config = configFor(ctx);
  const env: Record<string, string> = { ...envFor(ctx), PI_CODING_AGENT_DIR: await agentDir, [BOUND_KEY_ENV]: ctx.env[SCRIPTED_KEY_ENV] ?? "" };
  const args = [...(config.args ?? []), "--mode", "rpc", "--session-dir", config.sessionDir!, "--provider", BOUND_PROVIDER, "--model", ctx.model];
  const start = performance.now();
  const child = await spawnProcess({ command: ctx.executable, args, cwd: ctx.workspace, env, inheritEnv: [] });
  try {
    await writeJsonLine(child.stdin, { id: "bench", type: "get_state" });
    for await (const frame of readJsonLines(child.stdout)) {
      const value = frame.kind === "json" ? (frame.value as { type?: string; id?: string }) : undefined;
      if (value?.type === "response" && value.id === "bench") return performance.now() - start;
    }
    throw new Error("pi ended without answering get_state");
  } finally {
    await child.stop();
  }
}

await runStandbyBench({
  name: "pi",
  defaults: { runs: 20, warmup: 2 },
  makeDriver: (ctx) => pi(configFor(ctx)),
  requiredPanel: "models",
  bare: { label: "bare spawn + get_state", key: "bare_get_state_ms", target: "≤ 1.1", time: timedBareGetState },
});
