/**
 * `createSession` and `openSession`: a session made or reopened from the store, owned by this
 * host (the store's owner lease, renewed while the session is open). Reopening after the host died
 * runs the restart recovery (`recovery.ts`) before anything else.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import type { Thread } from "../agent/thread.js";
import { checkCallOptions } from "../agent/scope.js";
import type { WatchdogOptions } from "../agent/watchdogs.js";
import { ConfigError, SessionError, SessionExistsError, SessionNotFoundError } from "../errors/index.js";
import { openEventLog } from "./event-log.js";
import { OPEN_GATE } from "./gate.js";
import { checkBudget, initialGuardrails } from "./guardrails.js";
import { Inbox } from "./inbox.js";
import { checkIdleSleepMs, checkInboxCap, checkOwnerTtlMs } from "./lifecycle.js";
import { recover } from "./recovery.js";
import { SessionImpl } from "./session.js";
import { memorySessionStore } from "./stores/memory.js";
import type { NewSessionRecord, OpenSessionOptions, Session, SessionNotice, SessionOptions, SessionRecord, SessionStore } from "./types.js";

/** The longest session id, like a thread's (the default thread has the session's id). */
const MAX_SESSION_ID_LENGTH = 512;

/**
 * Start a session on `agent`: a new record in the store (`SessionExistsError` when the id is
 * taken, or when a session of the store that is not archived drives that thread), the thread it drives (started, or resumed when `threadId` names an existing one), owned
 * by this host until `close()`.
 *
 * @example
 * ```ts
 * const session = await createSession(agent, { id: "tenant-42/chat-7", budget: { sessionUsd: 5 } });
 * const { promptId } = await session.submit("Fix the failing test");
 * for await (const entry of session.events()) console.log(entry.seq, entry.event.type);
 * ```
 */
export async function createSession(agent: Agent, options: SessionOptions = {}): Promise<Session> {
  const { settings, ownerTtlMs } = checkSessionOptions(options);
  const id = options.id ?? `ses_${randomUUID()}`;
  const ownsStore = options.store === undefined;
  const store = options.store ?? memorySessionStore();
  if (!ownsStore) await refuseDrivenThread(store, options.threadId ?? id);
  const thread = await threadFor(agent, options.threadId ?? id);
  const info = await thread.info();
  const record: NewSessionRecord = {
    id,
    threadId: thread.id,
    driver: agent.driver.id,
    workspace: info.workspace,
    state: "created",
    gate: OPEN_GATE,
    guardrails: initialGuardrails(options.budget),
    queue: [],
    settings,
    metadata: { ...options.metadata },
  };
  const created = await store.create(record);
  const owner = await takeOwnership(store, id, ownerTtlMs);
  const notices: SessionNotice[] = [{ type: "session.state", state: "created" }];
  return assemble({ agent, store, ownsStore, record: created, thread, owner, ownerTtlMs, options }, new Inbox(settings.inboxCap), notices, false);
}

/**
 * Reopen a stored session (after a restart, or on another host once the first one's ownership
 * expired: `SessionError` `session_owned` until then). A run the record has in flight is recorded
 * as `host_restart` and never replayed; the gate, guardrails, queue and lifecycle are restored; the
 * next input resumes the provider conversation natively.
 */
export async function openSession(agent: Agent, id: string, options: OpenSessionOptions): Promise<Session> {
  if (typeof options !== "object" || options === null || options.store === undefined) throw new ConfigError("openSession needs { store }");
  refuseUnknownKeys("openSession", options, OPEN_SESSION_KEYS);
  checkRunOptions("openSession", options.run, options.watchdogs);
  const ownerTtlMs = checkOwnerTtlMs(options.ownerTtlMs);
  const { store } = options;
  const owner = await takeOwnership(store, id, ownerTtlMs);
  try {
    const record = await store.get(id);
    if (!record) throw new SessionNotFoundError();
    if (record.driver !== agent.driver.id) throw new ConfigError(`the session was created with driver ${record.driver}, not ${agent.driver.id}`);
    const thread = await agent.resumeThread(record.threadId);
    const recovered = recover(record);
    const restored: SessionRecord = { ...record, state: recovered.state };
    return await assemble({ agent, store, ownsStore: false, record: restored, thread, owner, ownerTtlMs, options }, recovered.inbox, recovered.notices, recovered.changed);
  } catch (error) {
    await store.releaseOwner(id, owner).catch(() => undefined);
    throw error;
  }
}

async function assemble(
  parts: { agent: Agent; store: SessionStore; ownsStore: boolean; record: SessionRecord; thread: Thread; owner: string; ownerTtlMs: number; options: SessionOptions | OpenSessionOptions },
  inbox: Inbox,
  notices: SessionNotice[],
  changed: boolean,
): Promise<Session> {
  const { record, store, owner, options } = parts;
  const retention = record.settings.retention;
  const log = await openEventLog({ store, sessionId: record.id, owner, ...(retention ? { retention } : {}) });
  const session = new SessionImpl({
    ...parts,
    inbox,
    state: record.state,
    log,
    ...(options.run ? { run: options.run } : {}),
    ...(options.watchdogs ? { watchdogs: options.watchdogs } : {}),
  });
  await session.start(notices, changed);
  return session;
}

/** This host's owner id, once the store says the session is ours. */
async function takeOwnership(store: SessionStore, id: string, ttlMs: number): Promise<string> {
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_SESSION_ID_LENGTH) {
    throw new ConfigError(`a session id is a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters`);
  }
  const owner = `${hostname()}/${process.pid}/${randomUUID()}`;
  if (!(await store.acquireOwner(id, owner, ttlMs))) {
    if (!(await store.get(id))) throw new SessionNotFoundError();
    throw new SessionError("session_owned", "another host drives this session; it can be opened here once that host's ownership expires");
  }
  return owner;
}

/**
 * One session per thread in a store: two would both drive one provider conversation. An archived
 * session never drives its thread again, so its thread may be taken by a new session. The check
 * reads the store's records (there is no index by thread); two creations racing on one thread
 * from two hosts are not caught here, and the thread lease still keeps their runs apart.
 */
async function refuseDrivenThread(store: SessionStore, threadId: string): Promise<void> {
  const records = await store.list({ limit: Number.MAX_SAFE_INTEGER });
  const driving = records.find((record) => record.threadId === threadId && record.state !== "archived");
  if (driving) throw new SessionExistsError(`thread "${threadId}" is already driven by session "${driving.id}" (archive it first, or give another threadId)`);
}

/** The session's thread: started with its id, or the existing one of that id resumed. */
async function threadFor(agent: Agent, threadId: string): Promise<Thread> {
  try {
    return await agent.startThread({ id: threadId });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "thread_exists") throw error;
    return agent.resumeThread(threadId);
  }
}

function checkSessionOptions(options: SessionOptions): { settings: NewSessionRecord["settings"]; ownerTtlMs: number } {
  if (typeof options !== "object" || options === null) throw new ConfigError("session options must be an object");
  refuseUnknownKeys("createSession", options, SESSION_KEYS);
  if (options.id !== undefined && (typeof options.id !== "string" || options.id.length === 0 || options.id.length > MAX_SESSION_ID_LENGTH)) {
    throw new ConfigError(`a session id is a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters`);
  }
  checkBudget(options.budget);
  checkRunOptions("createSession", options.run, options.watchdogs);
  const settings: NewSessionRecord["settings"] = { idleSleepMs: checkIdleSleepMs(options.idleSleepMs), inboxCap: checkInboxCap(options.inboxCap) };
  if (options.retention !== undefined) settings.retention = { ...options.retention };
  return { settings, ownerTtlMs: checkOwnerTtlMs(options.ownerTtlMs) };
}

const SESSION_KEYS: ReadonlySet<string> = new Set<keyof SessionOptions>(["id", "store", "threadId", "idleSleepMs", "inboxCap", "budget", "watchdogs", "run", "ownerTtlMs", "retention", "metadata"]);
const OPEN_SESSION_KEYS: ReadonlySet<string> = new Set<keyof OpenSessionOptions>(["store", "run", "watchdogs", "ownerTtlMs"]);

/** The call options a session owns itself, so a host cannot pass them for its runs. */
const SESSION_OWNED_RUN_KEYS: ReadonlySet<string> = new Set(["signal", "inputs", "waitForLease", "services", "output", "outputSchema"]);

/**
 * The options of every run the session will start, checked as a call's now: a misspelt or
 * invalid one (`watchdogs: { hardCapMS }`) would otherwise fail each run the session admits.
 */
function checkRunOptions(what: string, run: unknown, watchdogs: WatchdogOptions | undefined): void {
  if (run !== undefined && (typeof run !== "object" || run === null || Array.isArray(run))) throw new ConfigError(`${what}: run must be an object of call options`);
  const owned = Object.keys(run ?? {}).filter((key) => SESSION_OWNED_RUN_KEYS.has(key));
  if (owned.length > 0) throw new ConfigError(`${what}: run option ${owned.join(", ")} is the session's own, not the host's`);
  checkCallOptions(run as Parameters<typeof checkCallOptions>[0]);
  if (watchdogs !== undefined) checkCallOptions({ watchdogs });
}

/** A misspelt option (`idleSleepMS`) fails at once instead of leaving the default silently in force. */
function refuseUnknownKeys(what: string, options: object, known: ReadonlySet<string>): void {
  const unknown = Object.keys(options).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new ConfigError(`${what}: unknown option ${unknown.join(", ")} (options: ${[...known].join(", ")})`);
}
