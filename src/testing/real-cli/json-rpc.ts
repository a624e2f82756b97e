/**
 * JSON-RPC CLIs in the lane (codex `app-server`, ACP agents): the library's own `JsonRpcPeer`
 * owns the child's stdout, and every notification and server→client request it sees is also
 * recorded on the {@link CliProcess} so a test can wait for and inspect it.
 */
import { JsonRpcError, JsonRpcPeer } from "../../process/index.js";
import { CliProcess, type CliSpawnOptions } from "./cli-process.js";

/** A request the CLI sent to the host. */
export interface IncomingRequest {
  readonly method: string;
  readonly params: unknown;
}

/** A notification or request the CLI sent, as recorded on {@link CliProcess.messages}. */
export interface RecordedRpcMessage {
  readonly method: string;
  readonly params: unknown;
  /** True for server→client requests (they are answered by `onRequest`). */
  readonly request?: true;
}

/** Options of {@link spawnJsonRpcCli}. */
export interface JsonRpcCliOptions {
  /** Whether outgoing messages carry `"jsonrpc": "2.0"` (ACP: yes; codex app-server neither needs nor sends it). */
  readonly jsonrpcField: boolean;
  /**
   * Answers a server→client request; the value is the result. Returning `undefined` answers
   * -32601, so the CLI never waits forever on a request the test did not expect.
   */
  readonly onRequest?: (request: IncomingRequest) => unknown;
}

/** A spawned JSON-RPC CLI. */
export interface JsonRpcCli {
  readonly process: CliProcess;
  readonly peer: JsonRpcPeer;
  /** Server→client requests received, in order. */
  readonly incoming: IncomingRequest[];
}

/** Spawns a CLI whose stdout is JSON-RPC and connects the library's peer to it. */
export async function spawnJsonRpcCli(spawn: CliSpawnOptions, options: JsonRpcCliOptions): Promise<JsonRpcCli> {
  const proc = await CliProcess.spawn({ ...spawn, stdout: "external" });
  const incoming: IncomingRequest[] = [];
  const peer = new JsonRpcPeer({
    input: proc.handle.stdout,
    output: proc.handle.stdin,
    jsonrpcField: options.jsonrpcField,
    onNotification: (method, params) => proc.record({ method, params } satisfies RecordedRpcMessage),
    onRequest: async (method, params) => {
      const request = { method, params };
      incoming.push(request);
      proc.record({ method, params, request: true } satisfies RecordedRpcMessage);
      const result: unknown = await options.onRequest?.(request);
      if (result === undefined) throw JsonRpcError.methodNotFound(method);
      return result;
    },
    onProtocolError: (error, excerpt) => proc.strayLines.push(`${error.message}${excerpt ? ` — ${excerpt}` : ""}`),
  });
  proc.readUntil(peer.done);
  return { process: proc, peer, incoming };
}

/** Params of every recorded notification `method`, in order (from message index `from`). */
export function notificationsOf<T = unknown>(proc: CliProcess, method: string, from = 0): T[] {
  return proc.messages
    .slice(from)
    .filter((m): m is RecordedRpcMessage => isRecorded(m) && m.method === method && m.request !== true)
    .map((m) => m.params as T);
}

/** Whether a recorded message is the notification `method`. */
export function isNotification(message: unknown, method: string): message is RecordedRpcMessage {
  return isRecorded(message) && message.method === method && message.request !== true;
}

function isRecorded(message: unknown): message is RecordedRpcMessage {
  return typeof message === "object" && message !== null && typeof (message as { method?: unknown }).method === "string";
}
