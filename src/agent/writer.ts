/**
 * Warm writers (DESIGN §7): the provider process a thread's completed turn left running, bound to
 * its provider session, kept by core for the thread's next turn so that turn skips spawn and
 * resume. At most one per thread. A writer is used only by the next run that holds the thread's
 * lease and matches it; anything else retires it (stops and reaps its process):
 *
 * - it idles longer than the agent's `threadWriterIdleMs`;
 * - the thread moved on without it (another writer's turn, a lost lease: the checkpoint's last
 *   run or provider session is no longer the one the writer served);
 * - the next call's settings differ (compatibility signature), it forks, or the driver refuses it;
 * - the agent closes.
 */
import type { StandbyHandle } from "../driver/types.js";

/** Default of `AgentOptions.threadWriterIdleMs`. */
export const DEFAULT_THREAD_WRITER_IDLE_MS = 60_000;

/** What a kept writer served: the turn that left it and the session it is bound to. */
export interface WriterBinding {
  /** Compatibility signature of the settings the writer's turn ran with. */
  signature: string;
  providerSessionId: string;
  /** The run whose completed turn left the writer (the thread checkpoint's `lastRunId` after it). */
  runId: string;
}

interface KeptWriter extends WriterBinding {
  handle: StandbyHandle;
  idle: NodeJS.Timeout;
}

export class ThreadWriters {
  readonly #idleMs: number;
  readonly #kept = new Map<string, KeptWriter>();
  #closed = false;

  /** @param idleMs - How long a writer waits for its thread's next turn; 0 keeps none. */
  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  /** Whether writers are kept at all (so runs ask drivers to keep their process warm). */
  get enabled(): boolean {
    return this.#idleMs > 0 && !this.#closed;
  }

  /** Keep `handle` as the thread's writer, retiring any previous one; closed at once when disabled. */
  keep(threadId: string, handle: StandbyHandle, binding: WriterBinding): void {
    this.#retireQuietly(threadId);
    if (!this.enabled || !handle.isAlive()) {
      void handle.close().catch(() => undefined);
      return;
    }
    const idle = setTimeout(() => this.#retireQuietly(threadId), this.#idleMs);
    idle.unref();
    this.#kept.set(threadId, { ...binding, handle, idle });
  }

  /**
   * Under a new lease: retire the thread's writer unless the stored checkpoint still ends with the
   * turn it served, on the session it is bound to.
   */
  confirm(threadId: string, checkpoint: { lastRunId?: string; providerSessionId?: string }): void {
    const kept = this.#kept.get(threadId);
    if (kept && (kept.runId !== checkpoint.lastRunId || kept.providerSessionId !== checkpoint.providerSessionId)) {
      this.#retireQuietly(threadId);
    }
  }

  /** Whether a writer is kept for the thread (a take would find one). */
  has(threadId: string): boolean {
    return this.#kept.has(threadId);
  }

  /**
   * Take the thread's writer for one run when it is alive, its signature matches and `canServe`
   * says yes; otherwise retire it. Never hands the same writer out twice.
   */
  take(threadId: string, signature: string, canServe: (writer: StandbyHandle) => boolean): StandbyHandle | undefined {
    const kept = this.#kept.get(threadId);
    if (!kept) return undefined;
    this.#forget(threadId, kept);
    if (kept.signature === signature && kept.handle.isAlive() && canServe(kept.handle)) return kept.handle;
    void kept.handle.close().catch(() => undefined);
    return undefined;
  }

  /** Stop and reap the thread's writer, if any. */
  retire(threadId: string): Promise<void> {
    const kept = this.#kept.get(threadId);
    if (!kept) return Promise.resolve();
    this.#forget(threadId, kept);
    return kept.handle.close();
  }

  /** Refuse new writers and retire every kept one (on the agent's close). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#kept.keys()].map((threadId) => this.retire(threadId)));
  }

  /** Retire without waiting: a writer whose close fails is gone from the table all the same. */
  #retireQuietly(threadId: string): void {
    void this.retire(threadId).catch(() => undefined);
  }

  #forget(threadId: string, kept: KeptWriter): void {
    clearTimeout(kept.idle);
    this.#kept.delete(threadId);
  }
}
