/**
 * Binding the run to a session: `session/new`, or for a thread `session/fork`, `session/resume`
 * or `session/load` — only as the agent advertised them. A `session/load` replays history as
 * updates; they are counted, not mapped, and the run reports how many there were.
 */
import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import { abortableDelay } from "../../driver/kit/delay.js";
import type { HostToolsEndpoint, RunRequest } from "../../driver/types.js";
import { FeatureUnsupportedError, ProviderError } from "../../errors/index.js";
import { isObject, str } from "../../driver/json.js";
import type { AgentCaps } from "./capabilities.js";
import type { AcpLoadQuirks, AcpPresetTraits } from "./config.js";
import type { SessionAnswer, SessionAnswerFrame, SessionConfigOptions } from "./config-options.js";
import type { Emit, UpdateMapper } from "./events.js";
import { readFrame } from "../../driver/lens.js";

export type BindMethod = "session/new" | "session/fork" | "session/resume" | "session/load";

const MINUTE_MS = 60_000;
/** Quiet window after which a history replay that trails the `session/load` response is over. */
const REPLAY_QUIET_MS = 150;
/** Upper bound on waiting for a trailing replay. */
const REPLAY_MAX_MS = 3000;

/**
 * How long a `session/load` must wait so that it does not fall in the wall-clock minute of the
 * session's creation (0 when it already does not, or when the creation time is unknown).
 */
export function loadDelayMs(createdAt: number | undefined, now: number): number {
  if (createdAt === undefined) return 0;
  const nextMinute = (Math.floor(createdAt / MINUTE_MS) + 1) * MINUTE_MS;
  // A small margin so that the agent's own clock reading lands past the boundary.
  return now >= nextMinute ? 0 : nextMinute - now + 250;
}

/** Which MCP transports the agent takes on a session request. */
export interface McpTransports {
  /** `mcpCapabilities.http` as the agent advertised it. */
  http: boolean;
  /** Stdio servers (every ACP agent must take them; Copilot CLI rejects them). */
  stdio: boolean;
}

/**
 * The agent's MCP servers in ACP's `McpServer` shape, then the host-tools endpoint when the run has
 * one: over HTTP when the agent advertises `mcpCapabilities.http`, else through its stdio bridge.
 * A server the agent cannot take is refused before any session exists (nothing is delivered).
 * Secrets travel in `env` and `headers` (JSON-RPC on the agent's stdin), never in arguments.
 */
export function mcpServers(
  request: Pick<RunRequest, "resources">,
  accepts: McpTransports,
  driverId: string,
  hostTools?: Pick<HostToolsEndpoint, "http" | "stdio">,
): McpServer[] {
  const out: McpServer[] = [];
  for (const server of request.resources.mcp) {
    if ("command" in server) {
      if (!accepts.stdio) throw new FeatureUnsupportedError("MCP servers over stdio (the agent takes HTTP MCP servers only)", driverId, { kind: "mcp", name: server.name });
      out.push(stdioServer(server.name, server.command, server.args ?? [], server.env ?? {}));
    } else if (accepts.http) {
      out.push(httpServer(server.name, server.url, server.headers ?? {}));
    } else {
      throw new FeatureUnsupportedError("MCP servers over HTTP (the agent does not advertise mcpCapabilities.http)", driverId, { kind: "mcp", name: server.name });
    }
  }
  if (hostTools !== undefined) {
    const { http, stdio } = hostTools;
    if (accepts.http) out.push(httpServer(http.name, http.url, http.headers));
    else if (accepts.stdio) out.push(stdioServer(stdio.name, stdio.command, stdio.args, stdio.env));
    else throw new FeatureUnsupportedError("host tools (the agent takes neither HTTP nor stdio MCP servers)", driverId, { kind: "tool" });
  }
  return out;
}

const pairs = (record: Record<string, string>): { name: string; value: string }[] => Object.entries(record).map(([name, value]) => ({ name, value }));

function stdioServer(name: string, command: string, args: string[], env: Record<string, string>): McpServer {
  return { name, command, args: [...args], env: pairs(env) };
}

function httpServer(name: string, url: string, headers: Record<string, string>): McpServer {
  return { type: "http", name, url, headers: pairs(headers) };
}

/** What binding needs from the run. */
export interface BindContext {
  request: Pick<RunRequest, "thread" | "workspace">;
  caps: AgentCaps;
  traits: AcpPresetTraits & AcpLoadQuirks;
  driverId: string;
  mcp: McpServer[];
  /** `_meta` sent with the session request (the preset's instructions route), if any. */
  meta?: Record<string, unknown>;
  /** When this driver saw each session it created or forked bound (epoch ms). */
  sessionsCreated: Map<string, number> | undefined;
  mapper: Pick<UpdateMapper, "replaying" | "replayed">;
  /** Takes the config options the session answer reports. */
  config: Pick<SessionConfigOptions, "adopt">;
  emit: Emit;
  /** Resolves when every event emitted so far has reached the sink. */
  drained(): Promise<void>;
  /** Sends a request before delivery. */
  send(method: BindMethod, params: unknown): Promise<unknown>;
  signal: AbortSignal;
}

export interface BoundSession {
  sessionId: string;
  /** How the session was bound; `warm` when a warm writer's process still had it open. */
  method: BindMethod | "warm";
}

/** Binds the session, records its creation time, and announces `thread.bound` (and a replay, if any). */
export async function bindSession(context: BindContext): Promise<BoundSession> {
  const { request, caps, traits, driverId, mapper } = context;
  const common = sessionParams(context);
  const thread = request.thread;
  let method: BindMethod;
  let answer: unknown;
  if (thread?.providerSessionId !== undefined && thread.fork === true) {
    if (!caps.fork || traits.fork === false) throw new FeatureUnsupportedError("fork (session/fork is not advertised by the agent)", driverId);
    method = "session/fork";
    answer = await context.send(method, { sessionId: thread.providerSessionId, ...common });
  } else if (thread?.providerSessionId !== undefined) {
    if (caps.resume) {
      method = "session/resume";
      answer = await missingAsNotFound(method, thread.providerSessionId, context.send(method, { sessionId: thread.providerSessionId, ...common }));
    } else if (caps.loadSession) {
      method = "session/load";
      answer = await missingAsNotFound(method, thread.providerSessionId, loadSession(context, thread.providerSessionId));
    } else {
      throw new FeatureUnsupportedError("resume (neither session/resume nor session/load is advertised by the agent)", driverId);
    }
  } else {
    method = "session/new";
    answer = await context.send(method, common);
  }
  const bound: SessionAnswer = readFrame<SessionAnswerFrame>(answer) ?? {};
  const created = method === "session/new" || method === "session/fork";
  const sessionId = str(bound.sessionId) ?? (created ? undefined : thread?.providerSessionId);
  if (sessionId === undefined || sessionId === "") {
    throw new ProviderError(`the agent answered ${method} without a sessionId`, { code: "malformed_response", phase: "before_delivery" });
  }
  context.config.adopt(bound);
  if (created) context.sessionsCreated?.set(sessionId, Date.now());
  await context.emit({ type: "thread.bound", providerSessionId: sessionId, provenance: { provider: "acp", event: method } });
  if (mapper.replayed > 0) {
    await context.emit({ type: "notice", level: "info", code: "history_replayed", message: `session/load replayed ${mapper.replayed} history updates; they are not events of this run` });
  }
  return { sessionId, method };
}

/**
 * The agent's "no such session" (ACP's resource-not-found error, -32002, as codex-acp and
 * claude-agent-acp answer; Gemini's "Invalid session identifier" and "No previous sessions found")
 * as `provider_session_not_found`, so a host can start a fresh conversation; any other refusal stays
 * as it was.
 */
async function missingAsNotFound<T>(method: BindMethod, sessionId: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof ProviderError) || error.code !== "provider_error") throw error;
    const cause: unknown = error.cause;
    const rpcCode = isObject(cause) && typeof cause.code === "number" ? cause.code : undefined;
    if (rpcCode !== -32002 && !/resource not found|invalid session identifier|no previous sessions found|session not found|no such session/i.test(error.message)) throw error;
    throw new ProviderError(`the agent has no session ${sessionId} (${method}: ${error.message})`, { code: "provider_session_not_found", phase: "before_delivery", cause });
  }
}

/** What every session request carries: the workspace, the MCP servers and the preset's `_meta`. */
function sessionParams(context: Pick<BindContext, "request" | "mcp" | "meta">): { cwd: string; mcpServers: McpServer[]; _meta?: Record<string, unknown> } {
  return { cwd: context.request.workspace, mcpServers: context.mcp, ...(context.meta !== undefined ? { _meta: context.meta } : {}) };
}

/** `session/load`, after the creation-minute delay where the agent needs it, counting the replay instead of mapping it. */
async function loadSession(context: BindContext, sessionId: string): Promise<unknown> {
  const { traits, mapper, signal } = context;
  const delay = traits.loadAfterCreationMinute === true ? loadDelayMs(context.sessionsCreated?.get(sessionId), Date.now()) : 0;
  if (delay > 0) {
    await context.emit({
      type: "notice",
      level: "info",
      code: "load_delayed",
      message: `session/load waits ${delay} ms: the agent would overwrite the session's history if it loaded it in the minute the session was created`,
    });
    await abortableDelay(delay, signal);
  }
  mapper.replaying = true;
  let answer: unknown;
  try {
    answer = await context.send("session/load", { sessionId, ...sessionParams(context) });
    if (traits.replayTrailsLoad === true) await replaySettled(() => mapper.replayed, signal);
  } finally {
    mapper.replaying = false;
  }
  await context.drained();
  return answer;
}

/** Waits until no replayed update has arrived for {@link REPLAY_QUIET_MS} (at most {@link REPLAY_MAX_MS}). */
async function replaySettled(count: () => number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + REPLAY_MAX_MS;
  let seen = count();
  while (Date.now() < deadline) {
    await abortableDelay(REPLAY_QUIET_MS, signal);
    const now = count();
    if (now === seen) return;
    seen = now;
  }
}
