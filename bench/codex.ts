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
 * 3. Turn completion and the warm writer against raw turns on an open app-server connection
 *    (written by hand: `thread/start` + `turn/start`, then a second `turn/start` on that thread,
 *    each timed to `turn/completed`): a prepared run to `run.completed`, and a thread's second
 *    turn on its warm writer and relaunched + resumed. Target: ≤ 1.1× the raw turn (p50).
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

import { runStandbyBench, type RawTurns, type TurnSample } from "./standby-bench.js";

function configFor(ctx: RealCliContext): CodexConfig {
  return {
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "bench", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  };
}

/** Spawns the app-server the driver would, with the same arguments and environment. */
async function spawnAppServer(ctx: RealCliContext) {
  const config = resolveCodexConfig(configFor(ctx));
  const executable = resolveExecutable(undefined, ctx.env.PATH);
  if (executable === undefined) throw new Error("the Codex executable was not found");
  return spawnProcess({
    command: executable.path,
    args: appServerArgs(config),
    cwd: ctx.workspace,
    env: childEnv(config, executable.pathDirs).env,
    inheritEnv: inheritedEnv(config),
  });
}

const INITIALIZE = { clientInfo: { name: "bench", title: null, version: "0" }, capabilities: null };

/** The baseline: the same spawn, `initialize`, `model/list`, nothing else. */
async function timedBareHandshake(ctx: RealCliContext): Promise<number> {
  const start = performance.now();
  const child = await spawnAppServer(ctx);
  const peer = new JsonRpcPeer({ input: child.stdout, output: child.stdin, jsonrpcField: false });
  try {
    await peer.request("initialize", INITIALIZE);
    await peer.notify("initialized");
    await peer.request("model/list", {});
    return performance.now() - start;
  } finally {
    await child.stop();
    await peer.close();
  }
}

/** The turn being timed by hand: its start, first delta and the `turn/completed` it waits for. */
interface OpenTurn {
  start: number;
  firstDelta?: number;
  end(sample: TurnSample): void;
  fail(error: Error): void;
}

/**
 * The turn baseline: spawn and `initialize` (not timed), then a first turn (`thread/start` +
 * `turn/start`) and a second `turn/start` on that thread, each timed to its `turn/completed`.
 */
async function timedRawTurns(ctx: RealCliContext): Promise<RawTurns> {
  const child = await spawnAppServer(ctx);
  let open: OpenTurn | undefined;
  const onNotification = (method: string): void => {
    if (open === undefined) return;
    if (method === "item/agentMessage/delta") open.firstDelta ??= performance.now();
    if (method !== "turn/completed") return;
    const { start, firstDelta, end, fail } = open;
    open = undefined;
    if (firstDelta === undefined) return fail(new Error("the raw turn emitted no item/agentMessage/delta"));
    end({ firstDeltaMs: firstDelta - start, completedMs: performance.now() - start });
  };
  const peer = new JsonRpcPeer({ input: child.stdout, output: child.stdin, jsonrpcField: false, onNotification });
  const input = (text: string) => [{ type: "text", text, text_elements: [] }];
  const turn = (send: () => Promise<unknown>) =>
    new Promise<TurnSample>((resolve, reject) => {
      open = { start: performance.now(), end: resolve, fail: reject };
      send().catch(reject);
    });
  try {
    await peer.request("initialize", INITIALIZE);
    await peer.notify("initialized");
    let threadId = "";
    const first = await turn(async () => {
      threadId = (await peer.request<{ thread: { id: string } }>("thread/start", { cwd: ctx.workspace })).thread.id;
      await peer.request("turn/start", { threadId, input: input("Say ok") });
    });
    const second = await turn(() => peer.request("turn/start", { threadId, input: input("Say ok again") }));
    return { first, second };
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
  rawTurns: timedRawTurns,
});
