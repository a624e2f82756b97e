/**
 * `Thread`: a durable conversation (DESIGN §8). Its runs go through the one execution path with
 * hooks that take the single-writer lease and validate the checkpoint before anything launches,
 * renew the lease while the run lives, and save the checkpoint before the terminal event.
 */
import { randomUUID } from "node:crypto";
import type { EffectiveCallOptions, ThreadBinding, ThreadRunHooks } from "./execute.js";
import type { CallOptions } from "./options.js";
import type { OutputOption, StructuredOf } from "./structured/types.js";
import type { Result } from "../events/types.js";
import { drainRun, type RunStream } from "./run-stream.js";
import {
  AdaptorError,
  ConfigError,
  FeatureUnsupportedError,
  LeaseLostError,
  StoreError,
  ThreadBusyError,
  ThreadIncompatibleError,
  ThreadNotFoundError,
} from "../errors/index.js";
import { fingerprintMismatches, type ThreadFingerprint } from "../thread/fingerprint.js";
import type { HistoryOptions, HistoryPage, NewHistoryTurn, ThreadCheckpoint, ThreadRecord, ThreadStore } from "../thread/store.js";
import { capText, compactTranscript } from "../thread/transcript.js";
import type { ThreadWriters } from "./writer.js";
import type { CompactSupport, RunOperation } from "../driver/types.js";
import type { GoalOperation, GoalResponse } from "../driver/goals.js";
import { probeGoals, type GoalCallOptions, type GoalControl, type GoalHost } from "./thread-goals.js";
import { rewindThread, type RewindHost } from "./thread-rewind.js";
import { copyProviderState, providerStateHandle } from "./provider-state.js";
import type { Redactor } from "../redact/redact.js";

/** Call options of a thread run. */
export interface ThreadCallOptions<O extends OutputOption | undefined = OutputOption | undefined> extends CallOptions<O> {
  /** Wait for a busy thread's lease until this signal aborts, instead of failing with `thread_busy`. */
  waitForLease?: AbortSignal;
}

export interface Thread {
  readonly id: string;
  /** `result.structured` is typed from `options.output` (see `StructuredOf`). */
  run<O extends OutputOption | undefined = undefined>(prompt: string, options?: ThreadCallOptions<O>): Promise<Result<StructuredOf<O>>>;
  stream<O extends OutputOption | undefined = undefined>(prompt: string, options?: ThreadCallOptions<O>): RunStream<StructuredOf<O>>;
  /** A new thread continuing from this one's checkpoint, through the provider's native fork. */
  fork(options?: { id?: string; metadata?: Record<string, string> }): Promise<Thread>;
  /** A snapshot of the stored record. */
  info(): Promise<ThreadRecord>;
  /**
   * The thread's ended runs, newest first, a page at a time: pass the page's `nextBefore` as
   * `before` for the older ones. Rejects with `thread_not_found` once the thread is deleted.
   */
  history(options?: HistoryOptions): Promise<HistoryPage>;
  /**
   * Stop the thread's warm provider process now, if one waits for its next turn (it would
   * otherwise retire after the agent's `threadWriterIdleMs`); the next run resumes the
   * conversation natively. A session's sleep uses it.
   */
  release(): Promise<void>;
  /**
   * The provider's native compaction of the thread's conversation (Codex's compaction request,
   * Claude Code's `/compact`, an ACP agent's advertised `/compact`) as one ordinary turn through the
   * single execution path: lease, watchdogs, one terminal, a history entry. Throws
   * `FeatureUnsupportedError` (feature `compact`) at once when the driver has none; an ACP agent
   * that does not advertise `/compact` now fails the run the same way before anything is sent. A
   * thread that has taken no turn has nothing to compact: its run fails with `config_invalid`.
   */
  compact(options?: { signal?: AbortSignal }): RunStream;
  /**
   * The provider's native goal of the thread's conversation, after a probe that fails closed:
   * undefined when the driver or its provider has no goals (see {@link GoalControl}).
   */
  goal(options?: GoalCallOptions): Promise<GoalControl | undefined>;
  /**
   * Goes back to the end of turn `turn` (a `history()` turn number; 0: before the first turn):
   * the later turns leave the conversation the next run continues, the history gets an entry with
   * `rewoundTo` saying so, and the provider's session before the rewind is kept. Needs the
   * driver's native rewind (`FeatureUnsupportedError` otherwise); a busy thread is refused
   * (`thread_busy`). Resolves to the updated record.
   */
  rewind(turn: number, options?: { signal?: AbortSignal }): Promise<ThreadRecord>;
}

/** What a thread needs from its agent. */
export interface ThreadHost {
  store: ThreadStore;
  driverId: string;
  workspace: string;
  fingerprint: ThreadFingerprint;
  forkSupported: boolean;
  /** Unique per Agent instance: lease owners are `<instance>/<run id>`. */
  instanceId: string;
  leaseTtlMs: number;
  /** The agent's warm writers; a thread's is retired under a new lease when the thread moved on without it. */
  writers?: ThreadWriters;
  /** Validates and merges call options, then starts a run through the single execution path. */
  start(prompt: string, options: CallOptions | undefined, hooks: ThreadRunHooks): RunStream;
  assertOpen(): void;
  /** `descriptor().features.compact`; absent: unsupported. */
  compact?: CompactSupport;
  /** `Driver.goals` with the agent's workspace and resources, its answer checked; absent: the driver has no goals. */
  goals?(operation: GoalOperation, providerSessionId: string | undefined, signal: AbortSignal): Promise<GoalResponse>;
  /** The driver's native rewind (`Driver.rewind`), when it has one. */
  rewind?: RewindHost["rewind"];
  /** The agent's redactor: what a driver saves as provider state is written without its secrets. */
  redactor?: Redactor;
}

const LEASE_POLL_MS = 100;

/**
 * A store call whose untyped failure (a host's own store throwing a plain error) becomes
 * `store_failed`, so a run never reports a store failure as the provider's.
 */
async function stored<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw AdaptorError.is(error) ? error : new StoreError("store_failed", "the thread store failed", { cause: error });
  }
}

/** The longest host-chosen thread id, in UTF-16 code units (JavaScript string length). */
export const MAX_THREAD_ID_LENGTH = 512;

function checkThreadId(id: unknown): void {
  if (id !== undefined && (typeof id !== "string" || id.length === 0 || id.length > MAX_THREAD_ID_LENGTH)) {
    throw new ConfigError(`a thread id is a non-empty string of at most ${MAX_THREAD_ID_LENGTH} characters`);
  }
}

const NEW_THREAD_KEYS: ReadonlySet<string> = new Set(["id", "metadata"]);

/** startThread's and fork's options: a misspelt key (`{ idd }`) would otherwise start a thread without the id the host meant. */
function checkNewThreadOptions(what: string, options: unknown): { id?: string; metadata?: Record<string, string> } {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new ConfigError(`${what}: options must be an object`);
  for (const key of Object.keys(options)) if (!NEW_THREAD_KEYS.has(key)) throw new ConfigError(`${what}: "${key}" is not an option (expected id, metadata)`);
  const { id } = options as { id?: unknown };
  checkThreadId(id);
  return options as { id?: string; metadata?: Record<string, string> };
}

export function newThreadId(): string {
  return `thr_${randomUUID()}`;
}

/**
 * Throws unless the record was made by this driver under a compatible configuration, naming each
 * differing setting with both values (see `fingerprintMismatches`).
 */
export function assertCompatible(host: ThreadHost, record: ThreadRecord): void {
  if (record.driver !== host.driverId) {
    const redact = host.fingerprint.redact;
    throw new ThreadIncompatibleError([{ dimension: "driver", setting: "the driver given to createAgent", recorded: redact(record.driver), current: host.driverId }]);
  }
  const mismatches = fingerprintMismatches(record, host.fingerprint);
  if (mismatches.length > 0) throw new ThreadIncompatibleError(mismatches);
}

export class ThreadHandle implements Thread {
  readonly id: string;
  readonly #host: ThreadHost;

  constructor(host: ThreadHost, id: string) {
    this.#host = host;
    this.id = id;
  }

  async run<O extends OutputOption | undefined = undefined>(prompt: string, options?: ThreadCallOptions<O>): Promise<Result<StructuredOf<O>>> {
    // Drained like the agent's run(): requests cannot be answered from this stream.
    return drainRun(this.stream(prompt, options));
  }

  stream<O extends OutputOption | undefined = undefined>(prompt: string, options?: ThreadCallOptions<O>): RunStream<StructuredOf<O>> {
    this.#host.assertOpen();
    const { waitForLease, ...call } = options ?? {};
    if (waitForLease !== undefined && !(waitForLease instanceof AbortSignal)) {
      throw new ConfigError("waitForLease must be an AbortSignal");
    }
    // The structured value was validated against `call.output` before the result resolved.
    return this.#host.start(prompt, call, this.#hooks(waitForLease)) as RunStream<StructuredOf<O>>;
  }

  compact(options: { signal?: AbortSignal } = {}): RunStream {
    this.#host.assertOpen();
    const support = this.#host.compact ?? "unsupported";
    if (support === "unsupported") throw new FeatureUnsupportedError("compact", this.#host.driverId);
    const { signal } = options ?? {};
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new ConfigError("signal must be an AbortSignal");
    // No prompt and no inputs: the driver sends the provider's own compaction request.
    return this.#host.start("", signal !== undefined ? { signal } : undefined, this.#hooks(undefined, "compact"));
  }

  async goal(options: GoalCallOptions = {}): Promise<GoalControl | undefined> {
    this.#host.assertOpen();
    const goals = this.#host.goals;
    if (goals === undefined) return undefined;
    const call: GoalHost["call"] = (operation, providerSessionId, signal) => {
      this.#host.assertOpen();
      if (operation.op === "set" || operation.op === "clear") return this.#leased(() => goals(operation, providerSessionId, signal));
      return goals(operation, providerSessionId, signal);
    };
    return probeGoals({ driverId: this.#host.driverId, record: () => this.info(), call }, options);
  }

  /**
   * A change outside any run, under the thread's lease (`thread_busy` while a run holds it): the
   * thread's warm writer is retired first, since a provider process that has the conversation
   * loaded may own it (Codex refuses a second writer, and would pursue an active goal by itself).
   */
  async #leased<T>(change: () => Promise<T>): Promise<T> {
    const host = this.#host;
    const owner = `${host.instanceId}/${randomUUID()}`;
    if (!(await stored(host.store.acquireLease(this.id, owner, host.leaseTtlMs)))) throw new ThreadBusyError();
    try {
      await host.writers?.retire(this.id).catch(() => undefined);
      return await change();
    } finally {
      await host.store.releaseLease(this.id, owner).catch(() => undefined);
    }
  }

  async history(options?: HistoryOptions): Promise<HistoryPage> {
    const store = this.#host.store;
    if (typeof store.history !== "function") throw new ConfigError("the thread store keeps no history: it has no history() method");
    const page = await stored(store.history(this.id, options));
    // An empty page is also what a deleted thread has.
    if (page.turns.length === 0 && !(await stored(store.get(this.id)))) throw new ThreadNotFoundError();
    return page;
  }

  rewind(turn: number, options: { signal?: AbortSignal } = {}): Promise<ThreadRecord> {
    this.#host.assertOpen();
    return rewindThread({ ...this.#host, stored }, this.id, turn, options.signal);
  }

  async release(): Promise<void> {
    await this.#host.writers?.retire(this.id);
  }

  async info(): Promise<ThreadRecord> {
    const record = await stored(this.#host.store.get(this.id));
    if (!record) throw new ThreadNotFoundError();
    return record;
  }

  async fork(options: { id?: string; metadata?: Record<string, string> } = {}): Promise<Thread> {
    this.#host.assertOpen();
    checkNewThreadOptions("fork", options);
    const parent = await this.info();
    assertCompatible(this.#host, parent);
    if (parent.providerSessionId !== undefined && !this.#host.forkSupported) {
      throw new FeatureUnsupportedError("fork", this.#host.driverId);
    }
    const checkpoint: ThreadCheckpoint = { ...parent.checkpoint };
    if (parent.providerSessionId !== undefined) checkpoint.forkPending = true;
    const record = await stored(this.#host.store.create({
      id: options.id ?? newThreadId(),
      driver: parent.driver,
      // This agent's form, checked compatible above: a fork of an earlier version's record gets readable parts.
      fingerprint: this.#host.fingerprint.value,
      fingerprintParts: this.#host.fingerprint.parts,
      workspace: parent.workspace,
      metadata: { ...parent.metadata, ...options.metadata },
      parentId: parent.id,
      checkpoint,
      ...(parent.providerSessionId !== undefined ? { providerSessionId: parent.providerSessionId } : {}),
    }));
    await copyHistory(this.#host, parent, record.id);
    await forkProviderState(this.#host, parent.id, record.id);
    return new ThreadHandle(this.#host, record.id);
  }

  #hooks(waitForLease: AbortSignal | undefined, operation?: RunOperation): ThreadRunHooks {
    const host = this.#host;
    const id = this.id;
    let owner = "";
    let checkpoint: ThreadCheckpoint = { turns: 0 };
    let renewal: NodeJS.Timeout | undefined;

    return {
      threadId: id,
      ...(operation !== undefined ? { operation } : {}),

      async begin(signal, onLost): Promise<ThreadBinding> {
        const before = await stored(host.store.get(id));
        if (!before) throw new ThreadNotFoundError();
        assertCompatible(host, before);
        owner = `${host.instanceId}/${randomUUID()}`;
        while (!(await stored(host.store.acquireLease(id, owner, host.leaseTtlMs)))) {
          if (!waitForLease || waitForLease.aborted) throw new ThreadBusyError();
          await pause(LEASE_POLL_MS, signal, waitForLease);
          signal.throwIfAborted();
        }
        try {
          // Re-read under the lease: the previous writer may have advanced the checkpoint.
          const record = await stored(host.store.get(id));
          if (!record) throw new ThreadNotFoundError();
          checkpoint = { ...record.checkpoint };
          host.writers?.confirm(id, { ...record.checkpoint, ...(record.providerSessionId !== undefined ? { providerSessionId: record.providerSessionId } : {}) });
          const binding: ThreadBinding = { id };
          if (record.providerSessionId !== undefined) binding.providerSessionId = record.providerSessionId;
          else if (operation === "compact") throw new ConfigError("there is nothing to compact: the thread has taken no turn yet");
          if (record.checkpoint.forkPending && record.parentId !== undefined) {
            const parent = await stored(host.store.get(record.parentId));
            if (parent && parent.checkpoint.turns !== record.checkpoint.turns) {
              // Forking the parent's session now would include turns taken after fork().
              throw parentMovedOn(record.checkpoint.turns, parent.checkpoint.turns);
            }
            binding.fork = true;
          }
          renewal = setInterval(() => {
            host.store.renewLease(id, owner, host.leaseTtlMs).then(
              (held) => held || onLost(new LeaseLostError()),
              () => onLost(new LeaseLostError("the thread lease could not be renewed")),
            );
          }, Math.max(10, Math.floor(host.leaseTtlMs / 3)));
          renewal.unref();
          return binding;
        } catch (error) {
          // The refusal is what the caller needs to see, not a failure to release after it.
          await host.store.releaseLease(id, owner).catch(() => undefined);
          throw error;
        }
      },

      providerState(redactor) {
        return owner === "" ? undefined : providerStateHandle(host.store, id, owner, redactor);
      },

      async bound(providerSessionId) {
        if (checkpoint.forkPending) delete checkpoint.forkPending;
        await stored(host.store.saveCheckpoint(id, owner, { providerSessionId, checkpoint }));
      },

      async end(outcome) {
        clearInterval(renewal);
        await endTurn(host.store, id, owner, checkpoint, outcome);
      },
    };
  }
}

/**
 * A fork's conversation is its parent's up to the fork, so its history starts with the parent's
 * turns up to the parent's checkpoint (renumbered from 1, which they already are). Written under
 * the new thread's lease; if that fails, the fork is removed again and the failure reported.
 */
async function copyHistory(host: ThreadHost, parent: ThreadRecord, forkId: string): Promise<void> {
  const { store } = host;
  if (typeof store.history !== "function" || typeof store.appendTurn !== "function" || parent.checkpoint.lastRunId === undefined) return;
  const turns: NewHistoryTurn[] = [];
  let reached = false;
  let before: number | undefined;
  do {
    const page = await stored(store.history(parent.id, { limit: 1000, ...(before !== undefined ? { before } : {}) }));
    for (const { turn: _number, ...turn } of page.turns) {
      // Turns after the checkpoint the fork starts from (the parent moved on meanwhile) stay out.
      reached ||= turn.runId === parent.checkpoint.lastRunId;
      if (reached) turns.push(turn);
    }
    before = page.nextBefore;
  } while (before !== undefined);
  if (turns.length === 0) return;
  const owner = `${host.instanceId}/${randomUUID()}`;
  try {
    if (!(await stored(store.acquireLease(forkId, owner, host.leaseTtlMs)))) throw new ThreadBusyError();
    for (const turn of turns.reverse()) await stored(store.appendTurn(forkId, owner, turn));
    await stored(store.releaseLease(forkId, owner));
  } catch (error) {
    await store.releaseLease(forkId, owner).catch(() => undefined);
    await store.delete(forkId).catch(() => undefined);
    throw error;
  }
}

/**
 * A fork's driver state starts as a copy of its parent's (the conversation its first run forks),
 * written under the new thread's lease; if that fails, the fork is removed again.
 */
async function forkProviderState(host: ThreadHost, parentId: string, forkId: string): Promise<void> {
  const { store } = host;
  if (typeof store.loadProviderState !== "function" || typeof store.saveProviderState !== "function") return;
  const owner = `${host.instanceId}/${randomUUID()}`;
  try {
    if (!(await stored(store.acquireLease(forkId, owner, host.leaseTtlMs)))) throw new ThreadBusyError();
    await copyProviderState(store, parentId, forkId, owner);
    await stored(store.releaseLease(forkId, owner));
  } catch (error) {
    await store.releaseLease(forkId, owner).catch(() => undefined);
    await store.delete(forkId).catch(() => undefined);
    throw error;
  }
}

/** The run's history entry and checkpoint, written as the lease holder; then the lease goes. */
async function endTurn(store: ThreadStore, id: string, owner: string, checkpoint: ThreadCheckpoint, outcome: TurnOutcome): Promise<void> {
  const next: ThreadCheckpoint = {
    turns: checkpoint.turns + (outcome.status === "completed" ? 1 : 0),
    lastStatus: outcome.status,
    lastRunId: outcome.runId,
  };
  // A fork whose first run never bound a new session still points at its parent's.
  if (checkpoint.forkPending && outcome.providerSessionId === undefined) next.forkPending = true;
  const update: { providerSessionId?: string; checkpoint: ThreadCheckpoint } = { checkpoint: next };
  if (outcome.providerSessionId !== undefined) update.providerSessionId = outcome.providerSessionId;
  try {
    await appendHistory(store, id, owner, outcome);
    await stored(store.saveCheckpoint(id, owner, update));
  } catch (error) {
    // The failed checkpoint is the failure to report; a release failing after it adds nothing.
    await store.releaseLease(id, owner).catch(() => undefined);
    throw error;
  }
  await stored(store.releaseLease(id, owner));
}

type TurnOutcome = Parameters<ThreadRunHooks["end"]>[0];

/**
 * Appends the ended run to the thread's history, as the lease holder and before the checkpoint,
 * so a reader never sees a checkpoint past the history. A store without history (a host's own
 * written before it existed) keeps none.
 */
async function appendHistory(
  store: ThreadStore,
  id: string,
  owner: string,
  outcome: TurnOutcome,
): Promise<void> {
  if (typeof store.appendTurn !== "function") return;
  const { prompt, inputs, events } = outcome.turn;
  const compacted = compactTranscript(events);
  const started = events.find((event) => event.type === "run.started")?.at ?? Date.now();
  const turn: NewHistoryTurn = {
    runId: outcome.runId,
    status: outcome.status,
    startedAt: new Date(started).toISOString(),
    endedAt: new Date().toISOString(),
    prompt: capText(prompt),
    inputs,
    events: compacted.events,
  };
  if (compacted.omittedEvents !== undefined) turn.omittedEvents = compacted.omittedEvents;
  await stored(store.appendTurn(id, owner, turn));
}

/** A pending fork whose parent took turns since `fork()`: its session now holds them too. */
function parentMovedOn(turnsAtFork: number, turnsNow: number): ThreadIncompatibleError {
  return new ThreadIncompatibleError([
    { dimension: "parent_checkpoint", setting: "the parent thread's turns since fork()", recorded: `${turnsAtFork} turns at fork`, current: `${turnsNow} turns now` },
  ]);
}

function pause(ms: number, ...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener("abort", done);
      resolve();
    }
    for (const s of signals) s.addEventListener("abort", done, { once: true });
  });
}

/** Open an existing thread, checking compatibility before any process starts. */
export async function resumeThreadHandle(host: ThreadHost, id: string): Promise<Thread> {
  host.assertOpen();
  // A number or undefined (a host's lookup gone wrong) is a mistake to name, not a missing thread.
  if (typeof id !== "string" || id.length === 0) throw new ConfigError(`resumeThread: a thread id is a non-empty string, got ${id === "" ? "an empty one" : typeof id}`);
  const record = await stored(host.store.get(id));
  if (!record) throw new ThreadNotFoundError();
  assertCompatible(host, record);
  return new ThreadHandle(host, id);
}

/** Create a new thread record. */
export async function startThreadHandle(
  host: ThreadHost,
  options: { id?: string; metadata?: Record<string, string> } = {},
): Promise<Thread> {
  host.assertOpen();
  checkNewThreadOptions("startThread", options);
  const record = await stored(host.store.create({
    id: options.id ?? newThreadId(),
    driver: host.driverId,
    fingerprint: host.fingerprint.value,
    fingerprintParts: host.fingerprint.parts,
    workspace: host.workspace,
    metadata: { ...options.metadata },
    checkpoint: { turns: 0 },
  }));
  return new ThreadHandle(host, record.id);
}
