/**
 * The sessions this server drives: a map of id → live session, each opened on demand from the
 * store (`openSession`) or created here, with its pending approvals and questions followed from
 * its event log. Every session runs with `onApproval: "stream"` and `onUserInput: "stream"`, so a
 * request waits for an answer over HTTP.
 */
import { createSession, openSession } from "../session/open.js";
import type { Budget, Session, SessionRecord, SessionRunOptions, SessionState, SessionStatus, SessionStore } from "../session/types.js";
import { ApiError, notFound } from "./http-error.js";
import { PendingRequests, trackPending } from "./pending.js";
import type { SessionView } from "./schemas.js";
import type { ServedAgent } from "./agents.js";

/** The metadata key the agent's name is kept under (the record knows only the driver). */
export const AGENT_METADATA_KEY = "agent-adaptor.agent";
const RESERVED_PREFIX = "agent-adaptor.";

/** How many stored sessions (newest first) a thread deletion checks for one driving the thread. */
const THREAD_GUARD_SCAN = 1000;

const RUN_OPTIONS: SessionRunOptions = { onApproval: "stream", onUserInput: "stream" };

export interface LiveSession {
  session: Session;
  agent: string;
  pending: PendingRequests;
  stop: AbortController;
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
  readonly #opening = new Map<string, Promise<LiveSession>>();
  #closed = false;

  constructor(
    private readonly store: SessionStore,
    private readonly agents: ReadonlyMap<string, ServedAgent>,
  ) {}

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

  /** The live session `id`, opened from the store when this server does not drive it yet. */
  async live(id: string): Promise<LiveSession> {
    this.#assertOpen();
    const live = this.#live.get(id);
    if (live) return live;
    let opening = this.#opening.get(id);
    if (!opening) {
      opening = this.#open(id).finally(() => this.#opening.delete(id));
      this.#opening.set(id, opening);
    }
    return opening;
  }

  async #open(id: string): Promise<LiveSession> {
    const record = await this.store.get(id);
    if (!record) throw notFound("session");
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
    const live: LiveSession = { session, agent, pending: new PendingRequests(), stop: new AbortController() };
    this.#live.set(session.id, live);
    void trackPending(session, live.pending, live.stop.signal);
    return live;
  }

  async record(id: string): Promise<SessionRecord> {
    const record = await this.store.get(id);
    if (!record) throw notFound("session");
    return record;
  }

  /** The session as the API shows it: the live status where this server drives it, else the stored record. */
  async view(id: string): Promise<SessionView> {
    return this.#view(await this.record(id));
  }

  async list(options: { state?: SessionState; limit?: number }): Promise<SessionView[]> {
    const records = await this.store.list({ ...(options.state ? { state: options.state } : {}), ...(options.limit ? { limit: options.limit } : {}) });
    const views = await Promise.all(records.map((record) => this.#view(record)));
    // A live session's state may be ahead of its stored record: the filter holds for what is shown.
    return options.state ? views.filter((view) => view.state === options.state) : views;
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
      live: live !== undefined,
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
    for (const live of all) live.stop.abort();
    await Promise.allSettled(all.map((live) => live.session.close()));
  }

  #assertOpen(): void {
    if (this.#closed) throw new ApiError("server_closing", "the server is closing");
  }
}
