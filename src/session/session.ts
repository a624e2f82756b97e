/**
 * The session runtime (DESIGN §10, issue #18): one {@link Thread} driven by an inbox, an admission
 * gate, ceilings and a lifecycle, with every run's events and every session notice in a durable
 * event log. All runs go through `thread.stream()` — the single execution path — one at a time.
 *
 * Ordering rules (each a named test in test/session/):
 * - A run is admitted only when no run is in flight, the gate is open, no ceiling is tripped and
 *   the queue holds something that wakes; everything queued then joins that one run.
 * - `interruptAndHold` closes the gate before it cancels, in the same synchronous step, so the
 *   cancelled run's end can never admit the next.
 * - `resume` queues first, then opens the gate, then wakes; submit, steer and follow-up never open
 *   a gate a person closed.
 * - State changes are written to the store in order (coalesced), each call resolving once its own
 *   change is durable.
 */
import type { Agent } from "../agent/agent.js";
import type { RunStream } from "../agent/run-stream.js";
import type { Thread } from "../agent/thread.js";
import type { GoalCallOptions, GoalControl } from "../agent/thread-goals.js";
import type { WatchdogOptions } from "../agent/watchdogs.js";
import { agentLinkOf } from "../driver/agent-link.js";
import { AdaptorError, AgentClosedError, ConfigError, FeatureUnsupportedError, LeaseLostError, ResponseRejectedError, SessionError } from "../errors/index.js";
import type { AgentEvent, ApprovalResponse, NativeCommandInfo } from "../events/types.js";
import type { Usage } from "../events/usage.js";
import { InputError } from "../input/errors.js";
import type { ResolvedInputLimits } from "../input/limits.js";
import { planInputs } from "../input/plan.js";
import { InputRef } from "../input/refs.js";
import type { EventLog } from "./event-log.js";
import { checkReason, closedGate, OPEN_GATE } from "./gate.js";
import { admissionError, crossedInRun, raiseBudget, resetRunCeiling, settleRun, spendOf } from "./guardrails.js";
import { handoffSummary } from "./handoff.js";
import { newPromptId, type Inbox, type InboxBatch } from "./inbox.js";
import { IdleTimer } from "./lifecycle.js";
import type {
  GateState,
  Guardrails,
  QueuedPrompt,
  ResumeOptions,
  Session,
  SessionEvent,
  SessionNotice,
  SessionPatch,
  SessionRecord,
  SessionRunOptions,
  SessionSettings,
  SessionState,
  SessionStatus,
  SessionStore,
  SleepReason,
  SubmitOptions,
} from "./types.js";

/** Everything a session is built from: its record as restored, its thread, its log and its host's ownership. */
export interface SessionParts {
  agent: Agent;
  store: SessionStore;
  /** Closed with the session: the store the session made itself. */
  ownsStore: boolean;
  record: SessionRecord;
  inbox: Inbox;
  state: SessionState;
  thread: Thread;
  log: EventLog;
  owner: string;
  ownerTtlMs: number;
  run?: SessionRunOptions;
  watchdogs?: WatchdogOptions;
}

/** The run in flight. */
interface ActiveRun {
  stream: RunStream;
  runId: string;
  /** The thread it runs on (its provider conversation's running cost is the baseline of the next). */
  threadId: string;
  promptIds: string[];
  /** The batch it runs; absent for a compaction. */
  batch?: InboxBatch;
  /** The latest value per usage key the provider reported during the run. */
  usage: Usage;
  /** Settles once the run has ended and the session has taken its outcome in. */
  done: Promise<void>;
  /** The run was started with a handoff summary (a second missing conversation is an error). */
  handoff: boolean;
  /** ISO-8601, when the session started it (the record's `inFlight.startedAt`). */
  startedAt: string;
}

export class SessionImpl implements Session {
  readonly id: string;
  readonly #agent: Agent;
  readonly #store: SessionStore;
  readonly #ownsStore: boolean;
  readonly #log: EventLog;
  readonly #owner: string;
  readonly #ownerTtlMs: number;
  readonly #inbox: Inbox;
  readonly #idle: IdleTimer;
  readonly #runOptions: SessionRunOptions;
  readonly #stopping = new AbortController();
  #thread: Thread;
  #state: SessionState;
  #sleepReason: SleepReason | undefined;
  #gate: GateState;
  #guardrails: Guardrails;
  /** The record's settings, `model` and `effort` as `configure` left them. */
  #settings: SessionRecord["settings"];
  #run: ActiveRun | undefined;
  /** A clear, a handoff or an archive in progress: nothing is admitted meanwhile. */
  #exclusive = 0;
  /** Set after a handoff: the next run is the retried batch, led by the old thread's summary when it had one. */
  #handoff: { summary?: string } | undefined;
  #closing: Promise<void> | undefined;
  /** The archive in progress (the session refuses input as archived from its start). */
  #archiving: Promise<void> | undefined;
  #lost = false;
  #renewal: NodeJS.Timeout | undefined;
  #pendingWrite: Promise<void> | undefined;
  #lastWrite: Promise<void> = Promise.resolve();
  /** Fields the next write removes. */
  #pendingClears: ("inFlight" | "sleepReason")[] = [];
  /** The provider's own commands as last advertised for the current thread's conversation. */
  #nativeCommands: NativeCommandInfo[] | undefined;

  constructor(parts: SessionParts) {
    const { record } = parts;
    this.id = record.id;
    this.#agent = parts.agent;
    this.#store = parts.store;
    this.#ownsStore = parts.ownsStore;
    this.#log = parts.log;
    this.#owner = parts.owner;
    this.#ownerTtlMs = parts.ownerTtlMs;
    this.#inbox = parts.inbox;
    this.#thread = parts.thread;
    this.#state = parts.state;
    this.#sleepReason = record.sleepReason;
    this.#gate = structuredClone(record.gate);
    this.#guardrails = structuredClone(record.guardrails);
    this.#settings = structuredClone(record.settings);
    this.#runOptions = { ...parts.run, ...(parts.watchdogs ? { watchdogs: { ...parts.run?.watchdogs, ...parts.watchdogs } } : {}) };
    this.#idle = new IdleTimer(record.settings.idleSleepMs, () => this.#autoSleep());
    this.#renewal = setInterval(() => this.#renewOwner(), Math.max(250, Math.floor(this.#ownerTtlMs / 3)));
    this.#renewal.unref();
  }

  /** After construction: log what recovery found, write it, and start what the queue holds. */
  async start(notices: readonly SessionNotice[], changed: boolean): Promise<void> {
    for (const notice of notices) this.#notice(notice);
    if (changed) await this.#persist({ clear: ["inFlight"] });
    this.#pump();
    this.#idleIfQuiet();
  }

  /* ---------------- reads ---------------- */

  state(): SessionState {
    return this.#state;
  }

  status(): SessionStatus {
    const status: SessionStatus = {
      id: this.id,
      state: this.#state,
      gate: structuredClone(this.#gate),
      guardrails: structuredClone(this.#guardrails),
      queued: this.#inbox.ids(),
      settings: runSettings(this.#settings),
      threadId: this.#thread.id,
      lastSeq: this.#log.lastSeq,
    };
    if (this.#sleepReason !== undefined) status.sleepReason = this.#sleepReason;
    if (this.#nativeCommands !== undefined) status.nativeCommands = this.#nativeCommands.map((c) => ({ ...c }));
    if (this.#run) status.inFlight = { runId: this.#run.runId, promptIds: [...this.#run.promptIds] };
    return status;
  }

  events(options?: { after?: number; signal?: AbortSignal; batch?: false }): AsyncIterable<SessionEvent>;
  events(options: { after?: number; signal?: AbortSignal; batch: true }): AsyncIterable<readonly SessionEvent[]>;
  events(options: { after?: number; signal?: AbortSignal; batch?: boolean } = {}): AsyncIterable<SessionEvent> | AsyncIterable<readonly SessionEvent[]> {
    // The log ends with the session in this process: a reader would get an empty log, not the stored one.
    if (this.#closing) throw new SessionError("session_closed", "the session was closed in this process: openSession reads its log again");
    if (typeof options !== "object" || options === null) throw new ConfigError("events options must be an object");
    // A misspelt `after` would otherwise replay the whole log as if none were given.
    onlyKeys("events", options, EVENTS_KEYS);
    return this.#log.subscribe(options);
  }

  /* ---------------- input ---------------- */

  async submit(text: string, options: SubmitOptions = {}): Promise<{ promptId: string }> {
    this.#assertOpen();
    this.#assertAgentOpen();
    checkText(text, "submit");
    const { wake = true, inputs, from } = checkSubmitOptions(options);
    if (inputs !== undefined && inputs.length > 0) this.#checkInputCapabilities(inputs);
    if (wake) this.#assertAdmissible();
    const entry = this.#entry(text, "prompt", wake, inputs, from);
    this.#enqueue(entry, inputs);
    await this.#persist();
    this.#pump();
    return { promptId: entry.promptId };
  }

  async steer(text: string): Promise<"native" | "next_run"> {
    this.#assertOpen();
    this.#assertAgentOpen();
    checkText(text, "steer");
    const run = this.#run;
    if (run && (await deliveredNatively(() => run.stream.steer(text)))) {
      this.#notice({ type: "session.steer", promptId: newPromptId(), delivery: "native" });
      return "native";
    }
    this.#assertAdmissible();
    const entry = this.#entry(text, "steer", true);
    this.#enqueue(entry, undefined);
    this.#notice({ type: "session.steer", promptId: entry.promptId, delivery: "next_run" });
    await this.#persist();
    this.#pump();
    return "next_run";
  }

  async followUp(text: string): Promise<void> {
    this.#assertOpen();
    this.#assertAgentOpen();
    checkText(text, "followUp");
    const run = this.#run;
    if (run && (await deliveredNatively(() => run.stream.followUp(text)))) {
      this.#notice({ type: "session.follow_up", promptId: newPromptId(), delivery: "native" });
      return;
    }
    this.#assertAdmissible();
    const entry = this.#entry(text, "follow_up", true);
    this.#enqueue(entry, undefined);
    this.#notice({ type: "session.follow_up", promptId: entry.promptId, delivery: "next_run" });
    await this.#persist();
    this.#pump();
  }

  respond(requestId: string, decision: ApprovalResponse): void {
    this.#streamFor(requestId).respond(requestId, decision);
  }

  answer(requestId: string, answers: Record<string, string | string[]>): void {
    this.#streamFor(requestId).answer(requestId, answers);
  }

  decline(requestId: string): void {
    this.#streamFor(requestId).decline(requestId);
  }

  /* ---------------- interrupt, hold, pause, resume ---------------- */

  async interrupt(): Promise<boolean> {
    this.#assertOpen();
    const run = this.#run;
    run?.stream.cancel("interrupted");
    return run !== undefined;
  }

  async interruptAndHold(reason: string): Promise<boolean> {
    this.#assertOpen();
    checkReason(reason, "interruptAndHold");
    // One synchronous step: the gate is closed before the cancel, so the run's end admits nothing.
    this.#setGate(closedGate("hold", reason, new Date()));
    const run = this.#run;
    run?.stream.cancel(`held: ${reason}`);
    await this.#persist();
    return run !== undefined;
  }

  async pause(reason: string): Promise<void> {
    this.#assertOpen();
    checkReason(reason, "pause");
    this.#setGate(closedGate("pause", reason, new Date()));
    await this.#persist();
  }

  async resume(options: ResumeOptions): Promise<void> {
    this.#assertOpen();
    const { mode, message } = checkResumeOptions(options);
    if (message !== undefined) this.#assertAdmissible();
    // 1. the queue, as the mode says
    if (mode === "abandon") {
      for (const dropped of this.#inbox.clear()) this.#notice({ type: "session.prompt_dropped", promptId: dropped.promptId, reason: "abandoned" });
    }
    if (message !== undefined) {
      const entry = this.#entry(message, mode === "steer" ? "steer" : "prompt", true);
      this.#enqueue(entry, undefined, mode === "steer" ? "front" : "back");
      if (mode === "steer") this.#notice({ type: "session.steer", promptId: entry.promptId, delivery: "next_run" });
    }
    // 2. the gate; 3. the wake
    if (!this.#gate.open) this.#setGate(OPEN_GATE);
    this.#pump();
    // Nothing ran (an abandoned queue): the idle timer the queued input disarmed runs again.
    this.#idleIfQuiet();
    await this.#persist();
  }

  /* ---------------- budget ---------------- */

  async addBudget(amount: number | { usd?: number; tokens?: number }): Promise<void> {
    this.#assertOpen();
    this.#setGuardrails(raiseBudget(this.#guardrails, amount));
    this.#pump();
    await this.#persist();
  }

  async resetRunCeiling(): Promise<void> {
    this.#assertOpen();
    const next = resetRunCeiling(this.#guardrails);
    if (next.tripped === undefined && this.#guardrails.tripped !== undefined) this.#setGuardrails(next);
    this.#pump();
    await this.#persist();
  }

  /* ---------------- settings ---------------- */

  async configure(settings: { model?: string | null; effort?: string | null }): Promise<SessionSettings> {
    this.#assertOpen();
    const next = { ...this.#settings };
    for (const key of ["model", "effort"] as const) {
      const value = checkSetting(settings, key);
      if (value === null) delete next[key];
      else if (value !== undefined) next[key] = value;
    }
    this.#settings = next;
    this.#notice({ type: "session.configured", settings: runSettings(next) });
    await this.#persist();
    return runSettings(next);
  }

  /* ---------------- lifecycle ---------------- */

  async sleep(): Promise<void> {
    this.#assertOpen();
    if (this.#run || this.#exclusive > 0) throw new SessionError("session_busy", "a run is in flight: interrupt it or let it end before the session sleeps");
    await this.#fallAsleep("manual");
  }

  archive(): Promise<void> {
    this.#assertLive();
    if (this.#state === "archived") return Promise.resolve();
    // Input given while the run in flight unwinds is refused as archived: it could never run.
    this.#archiving ??= this.#archive();
    return this.#archiving;
  }

  async #archive(): Promise<void> {
    this.#exclusive++;
    try {
      this.#idle.disarm();
      await this.#stopRun("the session was archived");
      this.#setState("archived");
      await this.#thread.release().catch(() => undefined);
      await this.#persist();
    } finally {
      this.#exclusive--;
    }
  }

  async clear(): Promise<void> {
    this.#assertOpen();
    this.#exclusive++;
    try {
      await this.#stopRun("the session was cleared");
      await this.#rebind("clear");
      await this.#persist();
    } finally {
      this.#exclusive--;
    }
    this.#pump();
    this.#idleIfQuiet();
  }

  async compact(): Promise<void> {
    this.#assertOpen();
    if (this.#run || this.#exclusive > 0) throw new SessionError("session_busy", "a run is in flight: compaction waits for the conversation to be at rest");
    // A compaction is a turn: a gate a person closed admits none until they resume.
    if (!this.#gate.open) throw new SessionError("session_busy", `the session is ${this.#gate.by === "hold" ? "held" : "paused"} (${this.#gate.reason}): resume it before compacting`);
    // A compaction is a turn the provider bills like any other: a tripped ceiling refuses it too.
    this.#assertAdmissible();
    // Throws FeatureUnsupportedError at once where the driver has no native compaction.
    const stream = this.#thread.compact({ signal: this.#stopping.signal });
    this.#wakeUp();
    const run = this.#startRun(stream, undefined, false);
    await run.done;
    await run.stream.result.then(() => undefined);
  }

  async goal(options?: GoalCallOptions): Promise<GoalControl | undefined> {
    this.#assertOpen();
    return this.#thread.goal(options);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /* ---------------- admission and runs ---------------- */

  /** Admit the next run if everything allows it (see the module comment). */
  #pump(): void {
    if (this.#closing || this.#lost || this.#state === "archived" || this.#run || this.#exclusive > 0) return;
    if (!this.#gate.open || this.#guardrails.tripped) return;
    const batch = this.#inbox.take();
    if (!batch) return;
    const summary = this.#handoff?.summary;
    const prompt = summary === undefined ? batch.prompt : `${summary}\n\n${batch.prompt}`;
    let stream: RunStream;
    try {
      stream = this.#thread.stream(prompt, {
        ...this.#runOptions,
        ...runSettings(this.#settings),
        ...(batch.inputs.length > 0 ? { inputs: batch.inputs } : {}),
        // The session is the thread's only driver; a dead host's lease runs out and the run goes on.
        waitForLease: this.#stopping.signal,
      });
    } catch (error) {
      // Refused before it started (a closed agent, invalid run options): the prompts are reported, not retried.
      this.#notice(sessionError(error, batch.promptIds));
      void this.#persist().catch(() => undefined);
      this.#idleIfQuiet();
      return;
    }
    const handoff = this.#handoff !== undefined;
    this.#handoff = undefined;
    this.#wakeUp();
    this.#startRun(stream, batch, handoff);
  }

  #startRun(stream: RunStream, batch: InboxBatch | undefined, handoff: boolean): ActiveRun {
    this.#idle.disarm();
    const run: ActiveRun = { stream, runId: stream.runId, threadId: this.#thread.id, promptIds: batch?.promptIds ?? [], usage: {}, done: Promise.resolve(), handoff, startedAt: new Date().toISOString() };
    if (batch) run.batch = batch;
    this.#run = run;
    this.#setState("running");
    const admitted: SessionNotice = { type: "session.run_admitted", runId: run.runId, promptIds: [...run.promptIds] };
    if (batch?.from !== undefined) admitted.from = batch.from;
    this.#notice(admitted);
    void this.#persist().catch(() => undefined);
    run.done = this.#consume(run);
    return run;
  }

  /** Log the run's events, watch its spend, then take its outcome in. Never rejects. */
  async #consume(run: ActiveRun): Promise<void> {
    try {
      for await (const event of run.stream) this.#observe(run, event);
    } catch {
      // The outcome is the result's; an iteration failure adds nothing to it.
    }
    let failure: unknown;
    try {
      const result = await run.stream.result;
      if (result.usage) run.usage = { ...run.usage, ...result.usage };
    } catch (error) {
      failure = error;
    }
    const spend = spendOf(run.usage, this.#guardrails, run.threadId);
    this.#setGuardrails(settleRun(this.#guardrails, spend, run.runId, new Date(), { threadId: run.threadId, usage: run.usage }), false);
    this.#run = undefined;
    if (this.#missingConversation(run, failure)) await this.#handOff(run.batch!);
    if (this.#state === "running") this.#setState("idle");
    await this.#persist({ clear: ["inFlight"] }).catch(() => undefined);
    this.#pump();
    this.#idleIfQuiet();
  }

  #observe(run: ActiveRun, event: AgentEvent): void {
    this.#log.append(event);
    if (event.type === "notice" && event.commands !== undefined && run.threadId === this.#thread.id) this.#nativeCommands = event.commands;
    if (event.type !== "usage.observed") return;
    run.usage = { ...run.usage, ...event.usage };
    const crossed = crossedInRun(this.#guardrails, spendOf(run.usage, this.#guardrails, run.threadId));
    if (crossed === undefined) return;
    // Cancelled as soon as the provider reports past the ceiling; the trip itself is recorded when the run ends.
    run.stream.cancel(`${crossed} ceiling crossed by the provider-reported ${crossed.endsWith("Usd") ? "cost" : "tokens"}`);
  }

  /** A run failed because the provider no longer has the thread's saved conversation (handed off once). */
  #missingConversation(run: ActiveRun, failure: unknown): boolean {
    return run.batch !== undefined && !run.handoff && !this.#closing && this.#state !== "archived" && AdaptorError.is(failure) && failure.code === "provider_session_not_found";
  }

  /** One fresh thread with a summary of the old one; the failed batch runs again there. */
  async #handOff(batch: InboxBatch): Promise<void> {
    this.#exclusive++;
    try {
      const summary = await handoffSummary(this.#thread);
      await this.#rebind("provider_session_missing");
      this.#inbox.restore(batch);
      this.#handoff = summary === undefined ? {} : { summary };
    } catch (error) {
      this.#notice(sessionError(error, batch.promptIds));
    } finally {
      this.#exclusive--;
    }
  }

  /** A fresh thread with the same agent (same workspace and settings); the old one's process retires. */
  async #rebind(reason: "clear" | "provider_session_missing"): Promise<void> {
    const previous = this.#thread;
    const info = await previous.info().catch(() => undefined);
    const fresh = await this.#agent.startThread({ metadata: { ...info?.metadata, session: this.id } });
    await previous.release().catch(() => undefined);
    this.#thread = fresh;
    this.#handoff = undefined;
    // A fresh provider conversation: its commands are advertised anew.
    this.#nativeCommands = undefined;
    this.#notice({ type: "session.handoff", fromThreadId: previous.id, toThreadId: fresh.id, reason });
  }

  /** Cancel the run in flight, if any, and wait until the session has taken its end in. */
  async #stopRun(reason: string): Promise<void> {
    const run = this.#run;
    if (!run) return;
    run.stream.cancel(reason);
    await run.done;
  }

  /* ---------------- lifecycle internals ---------------- */

  #idleIfQuiet(): void {
    if (this.#run || this.#exclusive > 0 || this.#closing || this.#lost) return;
    if (this.#state === "running") this.#setState("idle");
    // A session never used (`created`) is as quiet as an idle one: it sleeps on its own too.
    if ((this.#state === "idle" || this.#state === "created") && this.#inbox.size === 0) this.#idle.arm();
  }

  #autoSleep(): void {
    // Re-checked when the timer fires: nothing queued, no run (so no approval or question waits).
    if ((this.#state !== "idle" && this.#state !== "created") || this.#run || this.#exclusive > 0 || this.#inbox.size > 0 || this.#closing || this.#lost) return;
    void this.#fallAsleep("idle_timeout").catch(() => undefined);
  }

  async #fallAsleep(reason: SleepReason): Promise<void> {
    this.#idle.disarm();
    if (this.#state !== "sleeping") this.#setState("sleeping", reason);
    // The thread's warm process goes; identity, workspace and the provider conversation stay.
    await this.#thread.release().catch(() => undefined);
    await this.#persist();
  }

  /** Input that may cause a run wakes a sleeping session. */
  #wakeUp(): void {
    if (this.#state === "sleeping") this.#setState("idle", "input");
  }

  #setState(state: SessionState, reason?: SleepReason | string): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#sleepReason = state === "sleeping" ? (reason as SleepReason) : undefined;
    const notice: SessionNotice = { type: "session.state", state };
    if (reason !== undefined) notice.reason = reason;
    this.#notice(notice);
  }

  #setGate(gate: GateState): void {
    this.#gate = gate;
    this.#notice({ type: "session.gate", gate: structuredClone(gate) });
  }

  #setGuardrails(guardrails: Guardrails, always = true): void {
    const changed = JSON.stringify(guardrails) !== JSON.stringify(this.#guardrails);
    this.#guardrails = guardrails;
    if (changed || always) this.#notice({ type: "session.budget", guardrails: structuredClone(guardrails) });
  }

  /* ---------------- the inbox ---------------- */

  #entry(text: string, kind: QueuedPrompt["kind"], wake: boolean, inputs?: readonly InputRef[], from?: string): QueuedPrompt {
    const entry: QueuedPrompt = { promptId: newPromptId(), text, wake, kind, inputCount: inputs?.length ?? 0, queuedAt: new Date().toISOString() };
    if (from !== undefined) entry.from = from;
    return entry;
  }

  #enqueue(entry: QueuedPrompt, inputs: readonly InputRef[] | undefined, position: "back" | "front" = "back"): void {
    const dropped = this.#inbox.add(entry, inputs, position);
    const queued: SessionNotice = { type: "session.prompt_queued", promptId: entry.promptId, wake: entry.wake };
    if (entry.from !== undefined) queued.from = entry.from;
    this.#notice(queued);
    for (const old of dropped) this.#notice({ type: "session.prompt_dropped", promptId: old.promptId, reason: "inbox_full" });
    if (entry.wake || entry.kind !== "prompt") {
      this.#idle.disarm();
      // Woken only where a run may follow: a held or tripped session stays asleep with its queue.
      if (this.#gate.open && !this.#guardrails.tripped) this.#wakeUp();
    }
  }

  /* ---------------- guards ---------------- */

  #assertLive(): void {
    if (this.#closing) throw new SessionError("session_closed", "the session was closed in this process");
    if (this.#lost) throw new SessionError("session_owned", "another host took the session over");
  }

  #assertOpen(): void {
    this.#assertLive();
    if (this.#state === "archived" || this.#archiving) throw new SessionError("session_archived", "the session is archived");
  }

  /**
   * A prompt (or steer, or follow-up) given once the session's agent was closed could never run: refused here, as the
   * agent refuses its own verbs. Prompts queued before the close are reported in a
   * `session.error` notice when the pump finds the agent closed.
   */
  #assertAgentOpen(): void {
    if (agentLinkOf(this.#agent)?.closed() === true) throw new AgentClosedError("the session's agent was closed");
  }

  /** New runs are refused while a ceiling is tripped. */
  #assertAdmissible(): void {
    const refusal = admissionError(this.#guardrails);
    if (refusal) throw refusal;
  }

  /**
   * Inputs checked against what the driver declares it takes (kind, media type, delivery mode, its
   * own per-kind count and size limits), without opening them: refused here, not when the run
   * starts, where they would fail every prompt coalesced with them. The agent's own limits and the
   * coalesced run's totals are still checked when the run starts.
   */
  #checkInputCapabilities(inputs: readonly InputRef[]): void {
    const driver = agentLinkOf(this.#agent)?.driver;
    if (driver === undefined) return; // Not an agent core created: its capabilities are not knowable here.
    planInputs(inputs, this.#agent.driver.id, driver.descriptor().inputs, UNBOUNDED_HOST_LIMITS);
  }

  #streamFor(requestId: string): RunStream {
    // An archived session has no request pending for good: say archived, as every other verb does.
    this.#assertOpen();
    const run = this.#run;
    if (!run) throw new ResponseRejectedError("request_not_pending", requestId, "the session has no run in flight");
    return run.stream;
  }

  #notice(notice: SessionNotice): void {
    this.#log.append(notice);
  }

  /* ---------------- the store ---------------- */

  /**
   * Write the session's state; resolves once a write that began after the call is durable.
   * Writes never overlap and a waiting one takes every change made until it starts.
   */
  #persist(extra?: Pick<SessionPatch, "clear">): Promise<void> {
    if (extra?.clear) this.#pendingClears.push(...extra.clear);
    if (this.#pendingWrite) return this.#pendingWrite;
    const write = this.#lastWrite.then(async () => {
      this.#pendingWrite = undefined;
      await this.#store.update(this.id, this.#owner, this.#patch());
    });
    this.#pendingWrite = write;
    this.#lastWrite = write.catch((error: unknown) => this.#onWriteFailure(error));
    return write;
  }

  #patch(): SessionPatch {
    const patch: SessionPatch = {
      threadId: this.#thread.id,
      state: this.#state,
      gate: structuredClone(this.#gate),
      guardrails: structuredClone(this.#guardrails),
      queue: this.#inbox.snapshot(),
      settings: structuredClone(this.#settings),
    };
    const clear = new Set(this.#pendingClears);
    this.#pendingClears = [];
    if (this.#sleepReason !== undefined) patch.sleepReason = this.#sleepReason;
    else clear.add("sleepReason");
    if (this.#run) {
      patch.inFlight = { runId: this.#run.runId, promptIds: [...this.#run.promptIds], startedAt: this.#run.startedAt };
      clear.delete("inFlight");
    } else clear.add("inFlight");
    patch.clear = [...clear];
    return patch;
  }

  #onWriteFailure(error: unknown): void {
    if (error instanceof LeaseLostError || (AdaptorError.is(error) && error.code === "lease_lost")) this.#loseOwnership();
    else if (!this.#closing) this.#notice(sessionError(error));
  }

  #renewOwner(): void {
    if (this.#closing || this.#lost) return;
    this.#store.renewOwner(this.id, this.#owner, this.#ownerTtlMs).then(
      (held) => held || this.#loseOwnership(),
      () => undefined, // A store that cannot be reached now may answer at the next renewal.
    );
  }

  /** Another host took over: stop driving, cancel the run in flight. */
  #loseOwnership(): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#idle.disarm();
    clearInterval(this.#renewal);
    this.#run?.stream.cancel("another host took the session over");
    this.#notice({ type: "session.error", code: "session_owned", message: "another host took the session over; this one stopped driving it" });
  }

  async #shutDown(): Promise<void> {
    this.#idle.disarm();
    this.#stopping.abort(new SessionError("session_closed", "the session was closed"));
    await this.#stopRun("the session was closed");
    clearInterval(this.#renewal);
    if (!this.#lost) await this.#persist().catch(() => undefined);
    await this.#log.close().catch(() => undefined);
    if (!this.#lost) await this.#store.releaseOwner(this.id, this.#owner).catch(() => undefined);
    if (this.#ownsStore) await this.#store.close();
  }
}

/** Whether a mid-run delivery reached the running turn natively; false when the driver has none or the turn just ended. */
async function deliveredNatively(deliver: () => Promise<unknown>): Promise<boolean> {
  try {
    await deliver();
    return true;
  } catch (error) {
    if (error instanceof FeatureUnsupportedError || (AdaptorError.is(error) && (error.code === "feature_unsupported" || error.code === "steer_rejected"))) return false;
    throw error;
  }
}

/** Only the driver's declared limits apply at submit; the agent's own are applied to the whole run when it starts. */
const UNBOUNDED_HOST_LIMITS: ResolvedInputLimits = Object.freeze({ maxCount: Number.MAX_SAFE_INTEGER, maxInputBytes: Number.MAX_SAFE_INTEGER, maxTotalBytes: Number.MAX_SAFE_INTEGER });

function sessionError(error: unknown, promptIds?: string[]): SessionNotice {
  const notice: SessionNotice = {
    type: "session.error",
    code: AdaptorError.is(error) ? error.code : "provider_error",
    message: AdaptorError.is(error) ? error.message : "the run could not start",
  };
  if (promptIds) notice.promptIds = [...promptIds];
  return notice;
}

function runSettings(settings: SessionSettings): SessionSettings {
  const picked: SessionSettings = {};
  if (settings.model !== undefined) picked.model = settings.model;
  if (settings.effort !== undefined) picked.effort = settings.effort;
  return picked;
}

function checkSetting(settings: { model?: string | null; effort?: string | null }, key: "model" | "effort"): string | null | undefined {
  if (typeof settings !== "object" || settings === null) throw new ConfigError("configure takes { model?, effort? }");
  onlyKeys("configure", settings, CONFIGURE_KEYS);
  const value = settings[key];
  if (value === undefined || value === null) return value;
  if (typeof value !== "string" || value.length === 0) throw new ConfigError(`configure: ${key} must be a non-empty string, or null for the agent's default`);
  return value;
}

function checkText(text: unknown, verb: string): asserts text is string {
  if (typeof text !== "string") throw new ConfigError(`${verb} text must be a string`);
}

/** A misspelt option (`{ wkae: false }`) would otherwise be dropped and the message run as if it were not given. */
function onlyKeys(verb: string, options: object, known: ReadonlySet<string>): void {
  for (const key of Object.keys(options)) if (!known.has(key)) throw new ConfigError(`${verb}: "${key}" is not an option (expected ${[...known].join(", ")})`);
}
const CONFIGURE_KEYS: ReadonlySet<string> = new Set(["model", "effort"]);
const SUBMIT_KEYS: ReadonlySet<string> = new Set(["wake", "inputs", "from"]);
const RESUME_KEYS: ReadonlySet<string> = new Set(["mode", "message"]);
const EVENTS_KEYS: ReadonlySet<string> = new Set(["after", "signal", "batch"]);

function checkSubmitOptions(options: SubmitOptions): SubmitOptions {
  if (typeof options !== "object" || options === null) throw new ConfigError("submit options must be an object");
  onlyKeys("submit", options, SUBMIT_KEYS);
  if (options.wake !== undefined && typeof options.wake !== "boolean") throw new ConfigError("submit option wake must be a boolean");
  if (options.from !== undefined && typeof options.from !== "string") throw new ConfigError("submit option from must be a string");
  if (options.inputs !== undefined && !Array.isArray(options.inputs)) throw new ConfigError("submit option inputs must be an array of input references");
  // Refused here, not when the run starts: the run would fail to start for every prompt coalesced with this one.
  options.inputs?.forEach((ref, index) => {
    if (!(ref instanceof InputRef)) throw new InputError("input_invalid", "inputs must be created with input.fromPath, input.fromFS or input.fromOpener", { index });
  });
  return options;
}

function checkResumeOptions(options: ResumeOptions): ResumeOptions {
  if (typeof options !== "object" || options === null || !["continue", "steer", "abandon"].includes(options.mode)) {
    throw new ConfigError('resume needs { mode: "continue" | "steer" | "abandon" }');
  }
  onlyKeys("resume", options, RESUME_KEYS);
  if (options.message !== undefined && typeof options.message !== "string") throw new ConfigError("resume message must be a string");
  if (options.mode === "steer" && options.message === undefined) throw new ConfigError('resume mode "steer" needs a message');
  return options;
}
