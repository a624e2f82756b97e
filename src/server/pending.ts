/**
 * Approvals and questions waiting for an answer, per session: requested minus resolved, read from
 * the session's event log (replayed from its start when the session is opened, then live), so the
 * answer is the same after a restart or a reconnect. Only the run in flight's requests are pending.
 */
import { isTerminalEvent } from "../events/types.js";
import type { Session, SessionEvent } from "../session/types.js";
import type { PendingApproval, PendingQuestion } from "./schemas.js";

export class PendingRequests {
  readonly #approvals = new Map<string, PendingApproval>();
  readonly #questions = new Map<string, PendingQuestion>();
  #seen = 0;

  /** Take one log entry into account (entries at or below the last seen are ignored). */
  observe(entry: SessionEvent): void {
    if (entry.seq <= this.#seen) return;
    this.#seen = entry.seq;
    const event = entry.event;
    switch (event.type) {
      case "approval.requested": {
        const { requestId, kind, summary, options, runId } = event;
        this.#approvals.set(requestId, {
          runId,
          seq: entry.seq,
          requestId,
          kind,
          ...(event.callId !== undefined ? { callId: event.callId } : {}),
          summary,
          options: options.map((o) => ({ id: o.id, label: o.label, kind: o.kind })),
        });
        return;
      }
      case "approval.resolved":
        this.#approvals.delete(event.requestId);
        return;
      case "question.requested":
        this.#questions.set(event.requestId, {
          runId: event.runId,
          seq: entry.seq,
          requestId: event.requestId,
          questions: event.questions.map((q) => ({ ...q })),
        });
        return;
      case "question.resolved":
        this.#questions.delete(event.requestId);
        return;
      case "session.run_interrupted":
        this.#dropRun(event.runId);
        return;
      default:
        if (isTerminalEvent(event)) this.#dropRun(event.runId);
    }
  }

  /** The last log seq taken into account. */
  get seen(): number {
    return this.#seen;
  }

  /** What waits now in the run `runId` (none when no run is in flight). */
  snapshot(runId: string | undefined): { approvals: PendingApproval[]; questions: PendingQuestion[] } {
    if (runId === undefined) return { approvals: [], questions: [] };
    return {
      approvals: [...this.#approvals.values()].filter((a) => a.runId === runId),
      questions: [...this.#questions.values()].filter((q) => q.runId === runId),
    };
  }

  #dropRun(runId: string): void {
    for (const [id, a] of this.#approvals) if (a.runId === runId) this.#approvals.delete(id);
    for (const [id, q] of this.#questions) if (q.runId === runId) this.#questions.delete(id);
  }
}

/** The longest pause before a dropped log subscriber is reopened, ms. */
const MAX_RESUBSCRIBE_DELAY_MS = 1000;

/**
 * Follow `session`'s log into `pending` until `signal` aborts (the server stops driving the
 * session) or the log ends; a subscriber dropped for any other reason (too slow, a failed read)
 * resumes after the last entry it saw, so the pending requests never go stale.
 */
export async function trackPending(session: Session, pending: PendingRequests, signal: AbortSignal): Promise<void> {
  for (let failures = 0; !signal.aborted; failures++) {
    try {
      // In bursts: this reader follows every event of every session the server drives.
      for await (const batch of session.events({ after: pending.seen, signal, batch: true })) for (const entry of batch) pending.observe(entry);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RESUBSCRIBE_DELAY_MS, 50 * 2 ** failures)).unref());
    }
  }
}
