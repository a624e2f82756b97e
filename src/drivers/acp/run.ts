/**
 * One ACP run: bind a session (session.ts), apply model and effort through the session's config
 * options with readback (config-options.ts), send one `session/prompt` and end with exactly one
 * outcome (turn.ts), mapping the agent's updates (events.ts), answering its permission requests
 * through core (permissions.ts) and its file system requests (fs-bridge.ts) meanwhile.
 *
 * The process is retired after the run, so an agent's confusion after a cancel (claude-agent-acp
 * answers the next prompt with an empty `end_turn`) can never reach a later run — except after a
 * thread turn asked to keep warm: then it stays open in its session as the thread's warm writer,
 * which core keeps only when the turn completed (a cancelled turn's writer is retired). Once the
 * agent has ended an uncancelled turn the run does not wait for that retirement: it goes on in the
 * background, the driver owning the process until it exits (`close()` still reaps it).
 */
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { EventSink, HostToolsEndpoint, RunRequest, RunResponse, StandbyHandle } from "../../driver/types.js";
import type { DriverEvent } from "../../events/types.js";
import { agentCaps } from "./capabilities.js";
import type { AcpLoadQuirks, AcpPresetTraits, ResolvedWatchdogs } from "./config.js";
import { SessionConfigOptions } from "./config-options.js";
import type { AcpConnection } from "./connection.js";
import { UpdateMapper } from "./events.js";
import { readTextFile, writeTextFile } from "./fs-bridge.js";
import { PermissionDesk } from "./permissions.js";
import { promptBlocks } from "./prompt-blocks.js";
import { sessionMeta } from "./resources.js";
import { writeSkillsPlugin, type SkillsPlugin } from "./skills-plugin.js";
import { bindSession, mcpServers, type BoundSession } from "./session.js";
import { compactPrompt, observeCommands } from "./commands.js";
import { runPromptTurn } from "./turn.js";
import { TurnWatchdogs } from "./watchdogs.js";

export interface AcpRunContext {
  driverId: string;
  traits: AcpPresetTraits & AcpLoadQuirks;
  watchdogs: ResolvedWatchdogs;
  /** The claimed standby, or a freshly started and initialized process. */
  acquire(request: RunRequest, signal: AbortSignal): Promise<AcpConnection>;
  /** The session still open on the acquired connection (a warm writer's), if any. */
  loadedSession?(): string | undefined;
  /** Keeps the connection running, in `sessionId`, as the thread's warm writer. */
  keep?(connection: AcpConnection, sessionId: string): StandbyHandle;
  /** When this driver saw each session it created or forked bound (epoch ms), for {@link AcpLoadQuirks.loadAfterCreationMinute}. */
  sessionsCreated?: Map<string, number>;
  /** The driver's redaction, for agent text cut before it is emitted. */
  redact?(text: string): string;
}

/** Runs one turn. Resolves with the response; rejects with a typed error or the abort reason. */
export async function runAcpTurn(request: RunRequest, sink: EventSink, signal: AbortSignal, context: AcpRunContext): Promise<RunResponse> {
  signal.throwIfAborted();
  const { driverId, traits } = context;
  const emitter = new OrderedEmitter(sink);
  const emit = emitter.emit;
  const drained = () => emitter.settled();
  const config = new SessionConfigOptions();
  // The watchdogs see the mapper and the permission desk only once the prompt is delivered.
  const watchdogs = new TurnWatchdogs(context.watchdogs, () => permissions.waiting > 0 || mapper.activeTools > 0);
  const mapper = new UpdateMapper(emit, traits, request.runId, {
    onConfigOptions: (options) => config.replace(options),
    onToolSignature: (signature) => watchdogs.toolSignature(signature),
    ...(context.redact !== undefined ? { redact: context.redact } : {}),
  });

  const connection = await context.acquire(request, signal);
  /** Set once the finished turn's process is handed back as the thread's warm writer. */
  let kept = false;
  /** Set once the agent ended the turn by itself: retiring its process need not hold the run. */
  let turnOver = false;
  const permissions = new PermissionDesk({
    approve: (approval) => request.approve(approval),
    ensureTool: (toolCall) => mapper.ensureTool(toolCall),
    drained,
    emit,
    aborted: () => signal.aborted,
    touched: () => watchdogs.touch(),
  });
  const unbind = bindTurnHandlers(connection, request, { watchdogs, mapper, permissions, emit });
  // Everything before the prompt is before delivery: a failure there leaves nothing delivered.
  const send = (method: string, params: unknown) => connection.request(method, params, signal, "before_delivery");

  try {
    const caps = agentCaps(connection.init);
    // Inputs are checked against what the agent advertised before anything is created.
    const compaction = request.operation === "compact";
    let blocks = compaction ? [] : await promptBlocks(request, caps, driverId);
    // An HTTP MCP server the agent cannot take is refused before the host-tools endpoint opens.
    const transports = { http: caps.mcpHttp, stdio: traits.stdioMcp !== false };
    mcpServers(request, transports, driverId);
    const loaded = context.loadedSession?.();
    const warm = loaded !== undefined && request.thread?.providerSessionId === loaded && request.thread.fork !== true;
    const hostTools = await hostToolsEndpoint(request, connection);
    const mcp = mcpServers(request, transports, driverId, hostTools);
    mapper.mcpServers = mcp.map((server) => server.name);
    const meta = sessionMeta(request.resources, traits, (await skillsPlugin(request, connection, traits))?.path);
    const session = warm
      ? await continueSession(loaded, emit)
      : await bindSession({ request, caps, traits, driverId, mcp, ...(meta !== undefined ? { meta } : {}), sessionsCreated: context.sessionsCreated, mapper, config, emit, drained, send, signal });
    // A warm session keeps the model and effort its previous turn applied (core matched the settings).
    if (!warm) await config.apply(request, (configId, value) => send("session/set_config_option", { sessionId: session.sessionId, configId, value }), drained);
    // Native compaction only as the session advertises it now; otherwise refused before the prompt.
    if (compaction) blocks = await compactPrompt(connection, session.sessionId, driverId, signal);
    const onTurnOver = () => (turnOver = true);
    const response = await runPromptTurn({ connection, session, blocks, request, signal, traits, mapper, emitter, permissions, watchdogs, onTurnOver });
    if (request.keepWarm === true && context.keep && connection.alive && !signal.aborted) {
      response.writer = context.keep(connection, session.sessionId);
      kept = true;
    }
    return response;
  } catch (error) {
    await mapper.finish().catch(() => undefined);
    await connection.flushMalformed().catch(() => undefined);
    throw await emitter.failure(error, signal);
  } finally {
    watchdogs.stop();
    permissions.cancelAll();
    unbind();
    if (!kept) await retire(connection, turnOver && !signal.aborted);
  }
}

/** Routes the connection's updates, notices, permission requests and file calls to this turn. */
function bindTurnHandlers(
  connection: AcpConnection,
  request: RunRequest,
  turn: { watchdogs: TurnWatchdogs; mapper: UpdateMapper; permissions: PermissionDesk; emit: OrderedEmitter["emit"] },
): () => void {
  const { watchdogs, mapper, permissions, emit } = turn;
  return connection.bind({
    onUpdate: async (params) => {
      watchdogs.touch();
      observeCommands(connection, params);
      await mapper.handle(params);
    },
    notice: (level, code, message, count) => emit({ type: "notice", level, code, message, ...(count !== undefined ? { count } : {}), provenance: { provider: "acp" } }),
    onPermission: (params) => permissions.answer(params),
    onReadTextFile: (params) => readTextFile(request.workspace, request.inputs, params),
    onWriteTextFile: (params) => writeTextFile(request.workspace, params),
  });
}

/** Stops the run's process: in the background once the turn is over, otherwise before the run ends. */
function retire(connection: AcpConnection, turnOver: boolean): Promise<void> {
  const closing = connection.close();
  if (!turnOver) return closing;
  void closing.catch(() => undefined);
  return Promise.resolve();
}

/**
 * The process's host-tools endpoint, bound to this run: the one a standby or warm writer kept
 * (bound now), else one opened for this run and kept with the process until it retires.
 */
async function hostToolsEndpoint(request: Pick<RunRequest, "hostTools">, connection: AcpConnection): Promise<HostToolsEndpoint | undefined> {
  const link = request.hostTools;
  if (link === undefined) return undefined;
  const kept = connection.hostTools;
  if (kept !== undefined) {
    // An agent that re-lists on the announcement of the run's services has them before the prompt.
    await link.bind(kept);
    return kept;
  }
  const opened = await link.open();
  connection.adoptHostTools(opened);
  return opened;
}

/** The process's skills plugin, written once for the agent's skills where the preset delivers them that way. */
async function skillsPlugin(request: Pick<RunRequest, "resources">, connection: AcpConnection, traits: AcpLoadQuirks): Promise<SkillsPlugin | undefined> {
  if (traits.skills !== "claude_plugin" || request.resources.skills.length === 0) return undefined;
  const kept = connection.skillsPlugin;
  if (kept !== undefined) return kept;
  const written = await writeSkillsPlugin(request.resources.skills);
  connection.adoptSkillsPlugin(written);
  return written;
}

/** A warm writer's session is open on its process already: the turn goes straight to `session/prompt`. */
async function continueSession(sessionId: string, emit: (event: DriverEvent) => Promise<void>): Promise<BoundSession> {
  await emit({ type: "thread.bound", providerSessionId: sessionId, provenance: { provider: "acp", event: "session/prompt" } });
  return { sessionId, method: "warm" };
}
