/**
 * One run's hold on its connection: Codex's notifications go to the run's mapper, its approval and
 * question requests are answered through core (and tracked until they settle), and the run's
 * requests race the process exiting and the run being cancelled. It also owns the turn's id, so
 * `turn/interrupt` and `turn/steer` name the active turn.
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
      onNotification: (method, params) => mapper.handle(method, params),
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
