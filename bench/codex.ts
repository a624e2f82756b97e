/**
 * The Codex driver on the real `@openai/codex` CLI against the scripted model server:
 *
 *   npm run bench -- codex [--runs 20] [--warmup 2]
 *
 * 1. Time to first event of a run, cold `run()` against `run()` after `prepare()`. Timed from
 *    `agent.stream()` to `thread.bound` — the first event every Codex run emits, in both paths
 *    (Codex's start-up `configWarning`, when there is one, arrives before the thread on a cold
 *    process but is dropped by an idle standby, so "any first event" would compare different
 *    things). The first `message.delta` is reported too. `prepare()` itself is not timed.
 *    Target: standby ≥ 5× faster (p50 ratio cold ÷ standby).
 * 2. `agent.inspect()` wall time against a bare handshake script in the same run: spawn the same
 *    binary with the same arguments and environment, `initialize`, `model/list`, timed to the
 *    `model/list` answer. Target: inspect ≤ 1.1× the bare handshake (p50 ratio).
 *
 * Everything runs in one isolated Codex home (warm after the warm-up), with the scripted server
 * answering every request with a short text. Samples alternate between the two sides so drifting
 * load hits both alike. The last line printed is one JSON object with the figures.
 */
import { performance } from "node:perf_hooks";

import { appServerArgs, childEnv, inheritedEnv, resolveCodexConfig, type CodexConfig } from "../src/drivers/codex/config.js";
import { resolveExecutable } from "../src/drivers/codex/executable.js";
import { codex } from "../src/drivers/codex/index.js";
import { JsonRpcPeer, spawnProcess } from "../src/process/index.js";
import { SCRIPTED_KEY_ENV, type RealCliContext } from "../src/testing/real-cli/index.js";

import { runStandbyBench } from "./standby-bench.js";

function configFor(ctx: RealCliContext): CodexConfig {
  return {
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "bench", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  };
}

/** The baseline: the same spawn, `initialize`, `model/list`, nothing else. */
async function timedBareHandshake(ctx: RealCliContext): Promise<number> {
  const config = resolveCodexConfig(configFor(ctx));
  const executable = resolveExecutable(undefined, ctx.env.PATH);
  if (executable === undefined) throw new Error("the Codex executable was not found");
  const start = performance.now();
  const child = await spawnProcess({
    command: executable.path,
    args: appServerArgs(config, []),
    cwd: ctx.workspace,
    env: childEnv(config, executable.pathDirs).env,
    inheritEnv: inheritedEnv(config),
  });
  const peer = new JsonRpcPeer({ input: child.stdout, output: child.stdin, jsonrpcField: false });
  try {
    await peer.request("initialize", { clientInfo: { name: "bench", title: null, version: "0" }, capabilities: null });
    await peer.notify("initialized");
    await peer.request("model/list", {});
    return performance.now() - start;
  } finally {
    await child.stop();
    await peer.close();
  }
}

await runStandbyBench({
  name: "codex",
  defaults: { runs: 20, warmup: 2 },
  makeDriver: (ctx) => codex(configFor(ctx)),
  requiredPanel: "models",
  bare: { label: "bare spawn+initialize+model/list", key: "bare_handshake_ms", target: "≤ 1.1", time: timedBareHandshake },
});
