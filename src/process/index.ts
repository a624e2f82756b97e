/** Child supervision: spawning, stdio framing, JSON-RPC, graceful stop and reaping (DESIGN §13). */
export { buildChildEnv, DEFAULT_ENV_ALLOWLIST, DEFAULT_ENV_ALLOWLIST_PREFIXES } from "./env.js";
export type { ChildEnvOptions } from "./env.js";
export { JsonRpcError, JsonRpcErrorCode } from "./jsonrpc-error.js";
export { JsonRpcPeer } from "./jsonrpc.js";
export type { JsonRpcId, JsonRpcPeerOptions, JsonRpcRequestOptions } from "./jsonrpc.js";
export { DEFAULT_MAX_LINE_BYTES, EXCERPT_CHARS, NdjsonFramer } from "./framer.js";
export type { JsonLine, NdjsonFramerOptions } from "./framer.js";
export { readJsonLineBatches, readJsonLines, writeJsonLine } from "./ndjson.js";
export type { ReadJsonLinesOptions } from "./ndjson.js";
export { liveProcessCount } from "./registry.js";
export { DEFAULT_STDERR_TAIL_BYTES, DEFAULT_STOP_GRACE_MS, OUTPUT_CLOSED_EXIT_MS, spawnProcess, STOP_ESCALATION } from "./spawn.js";
export type { ManagedProcess, ProcessExit, ProcessHandle, SpawnProcessOptions, StopEscalation, StopOptions } from "./spawn.js";
export { TailBuffer } from "./tail-buffer.js";
