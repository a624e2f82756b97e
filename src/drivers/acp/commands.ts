/**
 * The native commands an agent advertises per session (`available_commands_update`), kept per
 * process so a warm writer's next run still knows them, and native compaction built on them: an
 * ACP run with `operation: "compact"` sends `/compact` only when the session's current snapshot
 * advertises it, and refuses with `FeatureUnsupportedError` otherwise before the prompt is sent.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { FeatureUnsupportedError } from "../../errors/index.js";
import { isObject } from "../../driver/json.js";

/** How long a compaction waits after binding for the session's first commands snapshot (agents send it just after the session answer). */
export const COMMANDS_WAIT_MS = 3_000;

/** The command ACP agents (codex-acp, claude-agent-acp) offer for compaction. */
const COMPACT = "compact";

interface Snapshots {
  /** Session id → command names, as last advertised. */
  readonly bySession: Map<string, ReadonlySet<string>>;
  /** Woken whenever a snapshot arrives. */
  readonly waiters: Set<() => void>;
}

const processes = new WeakMap<object, Snapshots>();

function snapshotsOf(connection: object): Snapshots {
  let snapshots = processes.get(connection);
  if (snapshots === undefined) {
    snapshots = { bySession: new Map(), waiters: new Set() };
    processes.set(connection, snapshots);
  }
  return snapshots;
}

/** Records an `available_commands_update` seen on `connection` (any other update is ignored). */
export function observeCommands(connection: object, params: unknown): void {
  if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.update)) return;
  const update = params.update;
  if (update.sessionUpdate !== "available_commands_update" || !Array.isArray(update.availableCommands)) return;
  const names = new Set<string>();
  for (const command of update.availableCommands) {
    if (isObject(command) && typeof command.name === "string") names.add(command.name.replace(/^\//, ""));
  }
  const snapshots = snapshotsOf(connection);
  snapshots.bySession.set(params.sessionId, names);
  for (const wake of [...snapshots.waiters]) wake();
}

/** The session's commands as last advertised on `connection`, waiting up to `waitMs` for a first snapshot. */
async function commandsOf(connection: object, sessionId: string, waitMs: number, signal: AbortSignal): Promise<ReadonlySet<string> | undefined> {
  const snapshots = snapshotsOf(connection);
  const known = snapshots.bySession.get(sessionId);
  if (known !== undefined || waitMs <= 0) return known;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      snapshots.waiters.delete(check);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const check = () => {
      if (snapshots.bySession.has(sessionId)) done();
    };
    const timer = setTimeout(done, waitMs);
    snapshots.waiters.add(check);
    signal.addEventListener("abort", done, { once: true });
  });
  signal.throwIfAborted();
  return snapshots.bySession.get(sessionId);
}

/**
 * The prompt of a compaction run: `/compact`, when the session's current snapshot advertises it.
 * Throws `FeatureUnsupportedError` (nothing sent) when it does not, or when no snapshot came.
 */
export async function compactPrompt(connection: object, sessionId: string, driverId: string, signal: AbortSignal, waitMs = COMMANDS_WAIT_MS): Promise<ContentBlock[]> {
  const commands = await commandsOf(connection, sessionId, waitMs, signal);
  if (commands === undefined) throw new FeatureUnsupportedError("compact (the agent advertised no commands for the session)", driverId);
  if (!commands.has(COMPACT)) throw new FeatureUnsupportedError("compact (the agent does not advertise /compact)", driverId);
  return [{ type: "text", text: `/${COMPACT}` }];
}
