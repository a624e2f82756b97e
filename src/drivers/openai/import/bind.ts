/**
 * A new thread whose conversation is the imported one. The agent creates the thread (its record,
 * fingerprint and workspace are the agent's own), then, through the thread store's ordinary
 * writer path under a lease, the conversation is written as the thread's provider state and the
 * record is given its session id as a checkpoint. Its first run resumes that session like any
 * other. The driver stands beside core, so what it needs of
 * the agent and of the store is written here as the few calls it makes.
 */
import { randomUUID } from "node:crypto";
import { AdaptorError, ConfigError, StoreError, ThreadBusyError } from "../../../errors/index.js";

/** What the import needs of the agent: an `Agent` created over the same `openai()` driver. */
export interface TranscriptImportAgent<T extends { readonly id: string }> {
  readonly driver: { readonly id: string };
  startThread(options?: { id?: string; metadata?: Record<string, string> }): Promise<T>;
}

/** What the import needs of the thread store: a `ThreadStore`, the one the agent was created with. */
export interface TranscriptImportThreadStore {
  get(id: string): Promise<{ readonly driver: string; readonly providerSessionId?: string; readonly checkpoint: { readonly turns: number } } | undefined>;
  acquireLease(id: string, owner: string, ttlMs: number): Promise<unknown>;
  releaseLease(id: string, owner: string): Promise<void>;
  saveCheckpoint(id: string, owner: string, update: { providerSessionId?: string; checkpoint: { turns: number } }): Promise<unknown>;
  delete(id: string): Promise<boolean>;
  /** `ThreadStore.loadProviderState`: a store with it keeps the imported conversation. */
  loadProviderState?(id: string): Promise<string | undefined>;
  saveProviderState?(id: string, owner: string, state: string): Promise<void>;
}

/** Whether `store` keeps provider state (then the conversation goes there, not to `stateDir`). */
export function keepsProviderState(store: TranscriptImportThreadStore): boolean {
  return typeof store.loadProviderState === "function" && typeof store.saveProviderState === "function";
}

/** Long enough for three store calls; released as soon as they are done. */
const LEASE_TTL_MS = 30_000;

/** A store's own untyped failure as `store_failed`, the way core reports it. */
async function stored<R>(call: Promise<R>): Promise<R> {
  try {
    return await call;
  } catch (error) {
    throw AdaptorError.is(error) ? error : new StoreError("store_failed", "the thread store failed", { cause: error });
  }
}

/**
 * Starts a thread through the agent, writes `state` (the JSON text of the conversation, when the
 * store keeps provider state) and sets its provider session to `providerSessionId`. When that
 * fails, the new record (and with it the state) is deleted again (from `store`: if the store is
 * not the agent's, the empty thread stays in the agent's).
 */
export async function startImportedThread<T extends { readonly id: string }>(
  agent: TranscriptImportAgent<T>,
  store: TranscriptImportThreadStore,
  providerSessionId: string,
  options: { id?: string; metadata?: Record<string, string> },
  state?: string,
): Promise<T> {
  const thread = await agent.startThread(options);
  const owner = `transcript-import/${randomUUID()}`;
  try {
    const record = await stored(store.get(thread.id));
    if (record === undefined) throw new ConfigError("importTranscript: threadStore is not the store the agent was created with (the new thread is not in it)");
    if (record.providerSessionId !== undefined) throw new ConfigError("importTranscript: the new thread already has a conversation");
    if ((await stored(store.acquireLease(thread.id, owner, LEASE_TTL_MS))) === undefined) throw new ThreadBusyError();
    try {
      if (state !== undefined) await stored(store.saveProviderState!(thread.id, owner, state));
      await stored(store.saveCheckpoint(thread.id, owner, { providerSessionId, checkpoint: record.checkpoint }));
    } finally {
      await store.releaseLease(thread.id, owner).catch(() => undefined);
    }
    return thread;
  } catch (error) {
    await store.delete(thread.id).catch(() => undefined);
    throw error;
  }
}
