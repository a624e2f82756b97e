/**
 * One run's hold on its connection: Codex's notifications go to the run's mapper, its approval and
 * question requests are answered through core (and tracked until they settle), and the run's
 * requests race the process exiting and the run being cancelled. It also owns the turn's id, so
 * `turn/interrupt` and `turn/steer` name the active turn.
 *
 * Only the run's own turn is mapped. With an active goal Codex starts turns by itself (on resume,
 * and when a turn ends): one started before the run's request was written is Codex's, and once
 * the run's turn is known every other turn is Codex's too. Their notifications never reach the
 * mapper (so another turn's `turn/completed` never ends the run), and one running when the run is
 * about to deliver its prompt is interrupted first ({@link TurnChannel.settleCodexTurns}).
 */
import type { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import type { RunRequest } from "../../driver/types.js";
import { ProviderError, type DeliveryPhase } from "../../errors/index.js";
import { JsonRpcError, STOP_ESCALATION, type ProcessExit } from "../../process/index.js";
import { answerServerRequest } from "./approvals.js";
import type { ClientMethod, ClientParams, CodexConnection } from "./connection.js";
import { exitFailure } from "./errors.js";
import type { TurnMapper } from "./events.js";
import type { TurnSteerParams } from "./protocol/v2/TurnSteerParams.js";

/** How long a cancelled run waits for Codex to end the turn before the process is stopped anyway (the kit's escalation). */
const INTERRUPT_GRACE_MS = STOP_ESCALATION.interruptGraceMs;

/** The turn a notification names (`turnId`, or `turn.id` on `turn/started` and `turn/completed`). */
function turnIdOf(params: unknown): string | undefined {
  const frame = params as { turnId?: unknown; turn?: { id?: unknown } } | null | undefined;
  const id = frame?.turnId ?? frame?.turn?.id;
  return typeof id === "string" ? id : undefined;
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** The error a cancelled run ends with. */
export const abortedReason = (signal: AbortSignal): unknown => signal.reason ?? new Error("aborted");

/** A JSON-RPC error answer as a typed error; a thread Codex cannot find has its own code. */
function refused(method: string, error: unknown, phase: DeliveryPhase): unknown {
  if (!(error instanceof JsonRpcError)) return error;
  const missing = (method === "thread/resume" || method === "thread/fork") && /no rollout found|invalid session id|not found/i.test(error.message);
  return new ProviderError(`codex refused ${method}: ${error.message}`, {
    code: missing ? "provider_session_not_found" : "provider_error",
    phase,
    cause: error,
  });
}

export interface ChannelOptions {
  connection: CodexConnection;
  request: RunRequest;
  signal: AbortSignal;
  mapper: TurnMapper;
  malformed: MalformedFrameNotices;
  /** Makes the run steerable; returns the unregister function. */
  registerSteer(runId: string, steer: (text: string, signal: AbortSignal) => Promise<void>): () => void;
}

export class TurnChannel {
  readonly connection: CodexConnection;
  readonly mapper: TurnMapper;
  readonly signal: AbortSignal;
  /** Resolves when the process exited. */
  readonly exitWatch: Promise<{ exit: ProcessExit }>;
  /** Resolves when the run is cancelled. */
  readonly aborted: Promise<"aborted">;
  /** Set once `turn/start` may have been written: every failure after it is `after_delivery`. */
  delivered = false;
  #turnId: string | undefined;
  #interrupted = false;
  /** Turns Codex started by itself, each with a way to wait for its `turn/completed`. */
  readonly #codexTurns = new Map<string, { ended: Promise<void>; end: () => void; over: boolean }>();
  /** Server requests (approvals, questions) still being answered by the host. */
  readonly #pendingRequests = new Set<Promise<void>>();
  readonly #turnKnown: Promise<void>;
  #resolveTurnId!: () => void;
  #abortListener: (() => void) | undefined;
  readonly #detach: () => void;
  readonly #unregisterSteer: () => void;

  constructor(options: ChannelOptions) {
    const { connection, mapper, signal } = options;
    this.connection = connection;
    this.mapper = mapper;
    this.signal = signal;
    this.#turnKnown = new Promise<void>((resolve) => (this.#resolveTurnId = resolve));
    this.#detach = this.#attach(options);
    // A compaction's turn is known only from `turn/started`; a prompt's, from the `turn/start` answer already.
    mapper.onTurnStarted = (turnId) => {
      if (this.#turnId === undefined) this.turnStarted(turnId);
    };
    this.exitWatch = connection.exited.then((exit) => ({ exit }));
    this.aborted = new Promise<"aborted">((resolve) => {
      this.#abortListener = () => resolve("aborted");
      if (signal.aborted) this.#abortListener();
      else signal.addEventListener("abort", this.#abortListener, { once: true });
    });
    this.#unregisterSteer = options.registerSteer(options.request.runId, (text, steerSignal) => this.#steer(text, steerSignal));
  }

  #attach({ connection, request, mapper, malformed }: ChannelOptions): () => void {
    return connection.attach({
      onNotification: (method, params) => (this.#codexTurn(method, params) ? undefined : mapper.handle(method, params)),
      onRequest: (method, params, id) => {
        const answer = answerServerRequest(method, params, `codex_${id}`, {
          request,
          fileChanges: (itemId) => mapper.fileChanges(itemId),
          notice: (level, code, message) => mapper.notice(level, code, message),
        });
        const settled = answer.then(
          () => undefined,
          () => undefined,
        );
        this.#pendingRequests.add(settled);
        void settled.then(() => this.#pendingRequests.delete(settled));
        return answer;
      },
      onProtocolError: (error, excerpt) => {
        // A failure with a cause is ours (a handler, the read itself), not an unreadable line.
        const reported = error.cause === undefined
          ? malformed.report(error.code, excerpt)
          : mapper.notice("warning", "protocol_error", `codex app-server: ${error.message}`);
        void reported.catch(() => {});
      },
    });
  }

  /** Whether the notification belongs to a turn Codex started by itself (recording such a turn's start and end). */
  #codexTurn(method: string, params: unknown): boolean {
    const turnId = turnIdOf(params);
    if (turnId === undefined) return false;
    const codex = this.#codexTurns.get(turnId);
    if (codex !== undefined) {
      if (method === "turn/completed" && !codex.over) codex.end();
      // Before the prompt, Codex's running total is where the run's turn starts (its usage is the growth from there).
      return !(method === "thread/tokenUsage/updated" && !this.delivered);
    }
    if (this.#turnId !== undefined) return turnId !== this.#turnId;
    // Before the run's request is written, no turn can be the run's.
    if (method !== "turn/started" || this.delivered) return false;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const entry = { ended, over: false, end: () => ((entry.over = true), end()) };
    this.#codexTurns.set(turnId, entry);
    return true;
  }

  /**
   * Interrupts each turn Codex started by itself that is still running (an active goal's, begun on
   * resume) and waits, within the interrupt grace, for it to end: the prompt then starts a turn of
   * its own instead of joining Codex's as extra input.
   */
  async settleCodexTurns(threadId: string): Promise<void> {
    for (const [turnId, turn] of this.#codexTurns) {
      if (turn.over || !this.connection.alive) continue;
      const grace = AbortSignal.timeout(INTERRUPT_GRACE_MS);
      try {
        await this.connection.request("turn/interrupt", { threadId, turnId }, AbortSignal.any([grace, this.signal]));
        await Promise.race([turn.ended, this.exitWatch, this.aborted, aborted(grace)]);
      } catch {
        // The turn ended meanwhile, the process is gone or the run was cancelled: nothing to wait for.
      }
    }
  }

  get phase(): DeliveryPhase {
    return this.delivered ? "after_delivery" : "before_delivery";
  }

  /** Records the started turn's id: from now on it can be interrupted and steered. */
  turnStarted(turnId: string | undefined): void {
    this.#turnId = turnId;
    this.#resolveTurnId();
  }

  /**
   * Races a request against the process exiting and the run being cancelled. A request that must
   * not be abandoned once written (`turn/start`) passes `cancellable: false`: it races only the exit.
   */
  async guarded<M extends ClientMethod>(method: M, params: ClientParams<M>, { cancellable = true } = {}): Promise<unknown> {
    const answer = this.connection.request<unknown, M>(method, params, cancellable ? this.signal : undefined).then(
      (value) => ({ value }),
      (error: unknown) => {
        throw refused(method, error, this.phase);
      },
    );
    const outcome = await Promise.race(cancellable ? [answer, this.exitWatch, this.aborted] : [answer, this.exitWatch]);
    if (outcome === "aborted") throw abortedReason(this.signal);
    if ("exit" in outcome) throw await this.exitError(`during ${method}`, outcome.exit);
    return outcome.value;
  }

  /** Stops what is left of an exited process; the error the run fails with. */
  async exitError(what: string, exit: ProcessExit | undefined): Promise<ProviderError> {
    await this.connection.process.stop();
    return exitFailure(what, exit, this.connection.process.stderrTail(), this.phase);
  }

  /** Sends `turn/interrupt` once, if a turn is still running; waits at most the interrupt grace. */
  async interrupt(): Promise<void> {
    if (this.#interrupted) return;
    this.#interrupted = true;
    const threadId = this.mapper.threadId;
    const turnId = this.#turnId;
    if (turnId === undefined || threadId === undefined || this.mapper.done || !this.connection.alive) return;
    const grace = AbortSignal.timeout(INTERRUPT_GRACE_MS);
    try {
      await this.connection.request("turn/interrupt", { threadId, turnId }, grace);
    } catch {
      // No active turn any more, or the process is gone: nothing left to interrupt.
    }
  }

  /** Settles when every approval and question the host is answering now has settled. */
  requestsSettled(): Promise<unknown> {
    return Promise.all(this.#pendingRequests);
  }

  async #steer(text: string, steerSignal: AbortSignal): Promise<void> {
    await Promise.race([this.#turnKnown, this.mapper.outcome, this.aborted]);
    const turnId = this.#turnId;
    if (turnId === undefined || this.mapper.done || this.signal.aborted) {
      throw new ProviderError("codex: the run has no active turn to steer", { code: "steer_rejected", phase: "after_delivery" });
    }
    const params: TurnSteerParams = { threadId: this.mapper.threadId!, input: [{ type: "text", text, text_elements: [] }], expectedTurnId: turnId };
    await this.connection.request("turn/steer", params, steerSignal);
  }

  /** Lets go of the connection: no more notifications, requests or steering for this run. */
  release(): void {
    if (this.#abortListener) this.signal.removeEventListener("abort", this.#abortListener);
    this.#unregisterSteer();
    this.#detach();
  }
}
