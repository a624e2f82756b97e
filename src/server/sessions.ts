/**
 * The sessions this server drives: a map of id → live session, each opened on demand from the
 * store (`openSession`) or created here, with its pending approvals and questions followed from
 * its event log. Every session runs with `onApproval: "stream"` and `onUserInput: "stream"`, so a
 * request waits for an answer over HTTP.
 *
 * The hub lets go of what it no longer needs, so memory stays bounded and another host sharing the
 * store can take a session over: an archived session is closed at once (its event streams end with
 * the `archived` notice), and a session nobody watches, with no run and no request waiting, is
 * closed after `idleCloseMs` without use (the next request opens it again).
 */
import { SessionError } from "../errors/index.js";
import { createSession, openSession } from "../session/open.js";
import { compareNewestFirst } from "../session/stores/common.js";
import type { Budget, Session, SessionEvent, SessionRecord, SessionRunOptions, SessionState, SessionStatus, SessionStore } from "../session/types.js";
import type { SessionEventLog } from "../bridges/shared/event-source.js";
import { ApiError, notFound } from "./http-error.js";
import { PendingRequests, trackPending } from "./pending.js";
import type { QueuedPromptView, SessionView } from "./schemas.js";
import type { ServedAgent } from "./agents.js";

/** The metadata key the agent's name is kept under (the record knows only the driver). */
export const AGENT_METADATA_KEY = "agent-adaptor.agent";
const RESERVED_PREFIX = "agent-adaptor.";

/** The sessions a list answers without a `limit` (the stores' own default, docs/server.md). */
const DEFAULT_LIST_LIMIT = 100;

/** The characters of a queued message the queue route answers with. */
const QUEUED_TEXT_MAX = 2000;

/** How many stored sessions (newest first) a thread deletion checks for one driving the thread. */
const THREAD_GUARD_SCAN = 1000;

const RUN_OPTIONS: SessionRunOptions = { onApproval: "stream", onUserInput: "stream" };

/** How long a session nobody uses stays open by default, ms. */
export const DEFAULT_IDLE_CLOSE_MS = 5 * 60_000;

/** Events read from the store per page when replaying an archived session's log. */
const REPLAY_PAGE = 500;

export interface LiveSession {
  session: Session;
  agent: string;
  pending: PendingRequests;
  stop: AbortController;
  /** Event streams open on the session now. */
  viewers: number;
  /** Set by every use; the idle check closes the session only after a whole period without one. */
  used: boolean;
  /** The log's last seq at the previous idle check (a change is activity too). */
  seqAtCheck: number;
  idleTimer?: ReturnType<typeof setTimeout>;
}

export interface SessionHubOptions {
  /** Close a session after this long without use (no viewer, no run, no request waiting), ms. */
  idleCloseMs?: number;
}

export interface NewSession {
  agent: string;
  id?: string;
  idleSleepMs?: number;
  budget?: Budget;
  metadata?: Record<string, string>;
  model?: string;
  effort?: string;
}

export class SessionHub {
  readonly #live = new Map<string, LiveSession>();
  readonly #opening = new Map<string, Promise<LiveSession | undefined>>();
  /** Sessions being closed: opening one again waits until it is. */
  readonly #releasing = new Map<string, Promise<void>>();
  readonly #idleCloseMs: number;
  #closed = false;

  constructor(
    private readonly store: SessionStore,
    private readonly agents: ReadonlyMap<string, ServedAgent>,
    options: SessionHubOptions = {},
  ) {
    this.#idleCloseMs = options.idleCloseMs ?? DEFAULT_IDLE_CLOSE_MS;
  }

  get liveCount(): number {
    return this.#live.size;
  }

  agentNamed(name: string): ServedAgent {
    const agent = this.agents.get(name);
    if (!agent) throw notFound("agent");
    return agent;
  }

  async create(request: NewSession): Promise<LiveSession> {
    this.#assertOpen();
    const served = this.agentNamed(request.agent);
    const metadata = { ...request.metadata };
    if (Object.keys(metadata).some((key) => key.startsWith(RESERVED_PREFIX))) {
      throw new ApiError("body_invalid", `metadata keys starting with "${RESERVED_PREFIX}" are reserved`);
    }
    metadata[AGENT_METADATA_KEY] = served.name;
    const session = await createSession(served.agent, {
      store: this.store,
      run: RUN_OPTIONS,
      metadata,
      ...(request.id !== undefined ? { id: request.id } : {}),
      ...(request.idleSleepMs !== undefined ? { idleSleepMs: request.idleSleepMs } : {}),
      ...(request.budget !== undefined ? { budget: request.budget } : {}),
    });
    try {
      if (request.model !== undefined || request.effort !== undefined) {
        await session.configure({ ...(request.model !== undefined ? { model: request.model } : {}), ...(request.effort !== undefined ? { effort: request.effort } : {}) });
      }
    } catch (error) {
      await session.archive().catch(() => undefined);
      await session.close().catch(() => undefined);
      throw error;
    }
    return this.#adopt(session, served.name);
  }

  /**
   * The live session `id`, opened from the store when this server does not drive it yet. An
   * archived session is not opened again: `session_archived`.
   */
  async live(id: string): Promise<LiveSession> {
    const live = await this.driven(id);
    if (!live) throw new SessionError("session_archived", "the session is archived");
    return live;
  }

  /** Like `live`, but undefined for an archived session (which this server no longer drives). */
  async driven(id: string): Promise<LiveSession | undefined> {
    this.#assertOpen();
    await this.#releasing.get(id);
    const live = this.#live.get(id);
    if (live) {
      live.used = true;
      return live;
    }
    let opening = this.#opening.get(id);
    if (!opening) {
      opening = this.#open(id).finally(() => this.#opening.delete(id));
      this.#opening.set(id, opening);
    }
    return opening;
  }

  /** Archive the session `id` (nothing to do when it is already), then stop driving it. */
  async archive(id: string): Promise<void> {
    const live = await this.driven(id);
    if (!live) return;
    await live.session.archive();
    await this.#release(live);
  }

  /**
   * What the event stream of session `id` reads: the live log up to the `archived` notice, or, for
   * a session archived already, its stored log (final: the stream ends after it). An open stream
   * keeps the session open.
   */
  async eventLog(id: string): Promise<SessionEventLog> {
    const live = await this.driven(id);
    if (!live) return { events: ({ after = 0 } = {}) => this.#storedLog(id, after) };
    return { events: (options) => this.#watched(live, options ?? {}) };
  }

  /** In bursts, as the session delivers them (the event stream writes each burst at once). */
  async *#watched(live: LiveSession, options: { after?: number; signal?: AbortSignal }): AsyncGenerator<readonly SessionEvent[]> {
    live.viewers++;
    try {
      for await (const batch of live.session.events({ ...options, batch: true })) {
        const end = batch.findIndex((entry) => entry.event.type === "session.state" && entry.event.state === "archived");
        if (end >= 0) {
          yield batch.slice(0, end + 1);
          return;
        }
        yield batch;
      }
    } finally {
      live.viewers--;
      live.used = true;
    }
  }

  async *#storedLog(id: string, after: number): AsyncGenerator<readonly SessionEvent[]> {
    for (let from = after; ; ) {
      const page = await this.store.readEvents(id, { after: from, limit: REPLAY_PAGE });
      if (page.length > 0) yield page;
      if (page.length < REPLAY_PAGE) return;
      from = page[page.length - 1]!.seq;
    }
  }

  async #open(id: string): Promise<LiveSession | undefined> {
    const record = await this.store.get(id);
    if (!record) throw notFound("session");
    if (record.state === "archived") return undefined;
    const name = record.metadata[AGENT_METADATA_KEY];
    const served = name === undefined ? undefined : this.agents.get(name);
    if (!served) throw new ApiError("agent_not_configured", "the session's agent is not configured on this server");
    const session = await openSession(served.agent, id, { store: this.store, run: RUN_OPTIONS });
    return this.#adopt(session, served.name);
  }

  #adopt(session: Session, agent: string): LiveSession {
    if (this.#closed) {
      void session.close();
      throw new ApiError("server_closing", "the server is closing");
    }
    const live: LiveSession = { session, agent, pending: new PendingRequests(), stop: new AbortController(), viewers: 0, used: false, seqAtCheck: session.status().lastSeq };
    this.#live.set(session.id, live);
    void trackPending(session, live.pending, live.stop.signal);
    this.#armIdle(live);
    return live;
  }

  #armIdle(live: LiveSession): void {
    live.idleTimer = setTimeout(() => this.#checkIdle(live), this.#idleCloseMs);
    live.idleTimer.unref();
  }

  /** Close the session when nothing used it for a whole period; otherwise look again after another. */
  #checkIdle(live: LiveSession): void {
    if (this.#live.get(live.session.id) !== live) return;
    const status = live.session.status();
    const waiting = live.pending.snapshot(status.inFlight?.runId);
    const quiet =
      !live.used &&
      live.viewers === 0 &&
      status.inFlight === undefined &&
      status.state !== "running" &&
      waiting.approvals.length === 0 &&
      waiting.questions.length === 0 &&
      status.lastSeq === live.seqAtCheck;
    if (quiet) {
      void this.#release(live);
      return;
    }
    live.used = false;
    live.seqAtCheck = status.lastSeq;
    this.#armIdle(live);
  }

  /** Stop driving `live`: its event streams end once handed what was logged, the record stays. */
  #release(live: LiveSession): Promise<void> {
    const id = live.session.id;
    if (this.#live.get(id) !== live) return this.#releasing.get(id) ?? Promise.resolve();
    this.#live.delete(id);
    clearTimeout(live.idleTimer);
    const closing = (async () => {
      await live.session.close().catch(() => undefined);
      live.stop.abort();
    })().finally(() => this.#releasing.delete(id));
    this.#releasing.set(id, closing);
    return closing;
  }

  /** The configured agent's name of session `id` (driven or not). */
  async agentOf(id: string): Promise<string> {
    const live = this.#live.get(id);
    if (live) return live.agent;
    const name = (await this.record(id)).metadata[AGENT_METADATA_KEY];
    if (name === undefined || !this.agents.has(name)) throw new ApiError("agent_not_configured", "the session's agent is not configured on this server");
    return name;
  }

  async record(id: string): Promise<SessionRecord> {
    const record = await this.store.get(id);
    if (!record) throw notFound("session");
    return record;
  }

  /** The session's inbox as the store keeps it (a submit resolves once its prompt is stored), each text bounded. */
  async queue(id: string): Promise<QueuedPromptView[]> {
    return (await this.record(id)).queue.map((queued) => {
      const cut = queued.text.length > QUEUED_TEXT_MAX;
      return {
        promptId: queued.promptId,
        kind: queued.kind,
        ...(queued.from !== undefined ? { from: queued.from } : {}),
        queuedAt: queued.queuedAt,
        text: cut ? queued.text.slice(0, QUEUED_TEXT_MAX) : queued.text,
        ...(cut ? { truncated: true } : {}),
        inputCount: queued.inputCount,
      };
    });
  }

  /** The session as the API shows it: the live status where this server drives it, else the stored record. */
  async view(id: string): Promise<SessionView> {
    return this.#view(await this.record(id));
  }

  async list(options: { state?: SessionState; limit?: number }): Promise<SessionView[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    const { state } = options;
    if (state === undefined) return Promise.all((await this.store.list({ limit })).map((record) => this.#view(record)));
    // A live session's state may be ahead of its stored record, and the filter holds for the state
    // shown. Only live sessions can differ, so the store is asked for that many more (enough to
    // fill the page when that many match), and live sessions that match only now are added.
    const stored = await this.store.list({ state, limit: limit + this.#live.size });
    const listed = new Set(stored.map((record) => record.id));
    const movedIn = [...this.#live.values()].filter((live) => !listed.has(live.session.id) && live.session.status().state === state);
    const added = await Promise.all(movedIn.map((live) => this.store.get(live.session.id)));
    const records = [...stored, ...added.filter((record) => record !== undefined)].sort(compareNewestFirst);
    const views = await Promise.all(records.map((record) => this.#view(record)));
    return views.filter((view) => view.state === state).slice(0, limit);
  }

  async #view(record: SessionRecord): Promise<SessionView> {
    const live = this.#live.get(record.id);
    const status: SessionStatus = live ? live.session.status() : await this.#storedStatus(record);
    const { [AGENT_METADATA_KEY]: agent = "", ...metadata } = record.metadata;
    return {
      id: status.id,
      agent,
      state: status.state,
      ...(status.sleepReason !== undefined ? { sleepReason: status.sleepReason } : {}),
      gate: status.gate,
      guardrails: {
        spentUsd: status.guardrails.spentUsd,
        spentTokens: status.guardrails.spentTokens,
        budget: status.guardrails.budget,
        ...(status.guardrails.tripped ? { tripped: status.guardrails.tripped } : {}),
      },
      queued: status.queued,
      ...(status.inFlight ? { inFlight: { runId: status.inFlight.runId, promptIds: status.inFlight.promptIds } } : {}),
      settings: status.settings,
      threadId: status.threadId,
      lastSeq: status.lastSeq,
      ...(status.nativeCommands !== undefined ? { nativeCommands: status.nativeCommands } : {}),
      // Still live while it is being closed: the store lets go of its ownership only when the close
      // ends, and a client that saw `live: false` may hand the session to another server at once.
      live: live !== undefined || this.#releasing.has(record.id),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      metadata,
    };
  }

  async #storedStatus(record: SessionRecord): Promise<SessionStatus> {
    const { model, effort } = record.settings;
    return {
      id: record.id,
      state: record.state,
      ...(record.sleepReason !== undefined ? { sleepReason: record.sleepReason } : {}),
      gate: record.gate,
      guardrails: record.guardrails,
      queued: record.queue.map((q) => q.promptId),
      ...(record.inFlight ? { inFlight: { runId: record.inFlight.runId, promptIds: record.inFlight.promptIds } } : {}),
      settings: { ...(model !== undefined ? { model } : {}), ...(effort !== undefined ? { effort } : {}) },
      threadId: record.threadId,
      lastSeq: await this.store.lastSeq(record.id),
    };
  }

  /**
   * Whether a session that is not archived drives thread `threadId` (deleting it would pull the
   * conversation from under the session, whether or not a run holds the thread's lease now).
   */
  async drivesThread(threadId: string): Promise<boolean> {
    for (const live of this.#live.values()) {
      const status = live.session.status();
      if (status.threadId === threadId && status.state !== "archived") return true;
    }
    const records = await this.store.list({ limit: THREAD_GUARD_SCAN });
    return records.some((record) => record.threadId === threadId && record.state !== "archived");
  }

  /** Stop driving every session (records stay; nothing is archived). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#opening.values()]);
    const all = [...this.#live.values()];
    this.#live.clear();
    for (const live of all) {
      clearTimeout(live.idleTimer);
      live.stop.abort();
    }
    await Promise.allSettled([...all.map((live) => live.session.close()), ...this.#releasing.values()]);
  }

  #assertOpen(): void {
    if (this.#closed) throw new ApiError("server_closing", "the server is closing");
  }
}
