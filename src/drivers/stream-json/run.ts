/**
 * One run = one turn in one CLI process: take the prepared standby or start (and initialize) a
 * process — resuming or forking the thread's session when it has one — write the user line, map
 * what the CLI says until its `result`, answer its permission requests, and retire the process.
 * Cancellation escalates by the kit's one policy: `interrupt`, a short grace for the CLI to end
 * its turn, then stdin end and SIGTERM, then SIGKILL; core publishes the single `run.cancelled`.
 * A `result` read before the cancel was acted on is the turn's outcome: it is announced at once,
 * and a later cancel only retires the process. Every item the turn started and never finished is
 * closed before the terminal. A finished turn does not wait for its process: it retires in the
 * background, owned by the launcher until it exits.
 */
import { interruptWithinGrace } from "../../driver/kit/connection.js";
import { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import { AuthRequiredError } from "../../errors/index.js";
import type { EventSink, RunRequest, RunResponse } from "../../driver/types.js";
import { acquireProcess } from "./acquire.js";
import type { Launcher } from "./launcher.js";
import { complete } from "./outcome.js";
import { PermissionBroker } from "./permissions.js";
import type { Incoming, StreamJsonProcess } from "./process.js";
import { promptLine } from "./prompt-line.js";
import { StreamJsonWriter } from "./standby.js";
import { TurnMapper } from "./turn.js";
import { str, type UserLine } from "./wire.js";

/** Bounds the pending `interrupt` request; the escalation itself does not wait this long. */
const INTERRUPT_ANSWER_MS = 2_000;

export async function runTurn(launcher: Launcher, owner: object, request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
  signal.throwIfAborted();
  const line = await promptLine(launcher.dialect, request);
  const { proc, claimed } = await acquireProcess(launcher, owner, request);
  const turn = new ProcessTurn(launcher, proc, request, sink);
  let outcome: RunResponse | undefined;
  let failure: unknown;
  try {
    outcome = await turn.play(line, claimed, signal);
  } catch (error) {
    failure = error;
    await turn.mapper.closeOpenItems().catch(() => undefined);
    await turn.malformed.flush().catch(() => undefined);
  } finally {
    await turn.release();
  }
  if (failure !== undefined) throw failure;
  const response: RunResponse = { ...outcome!, stderrTail: proc.stderrTail() };
  if (turn.kept) response.writer = new StreamJsonWriter(proc, owner, outcome!.providerSessionId!);
  return response;
}

/** The turn played in one CLI process: what it reads, how far it got, and how the process is let go. */
class ProcessTurn {
  readonly mapper: TurnMapper;
  readonly malformed: MalformedFrameNotices;
  readonly #broker: PermissionBroker;
  /** Set once the cancel is acted on: a `result` read after it belongs to the interrupted turn. */
  #interrupting = false;
  /** The outcome of a `result` read before any interrupt, announced as it was read. */
  #completion: Promise<RunResponse> | undefined;
  /** Until the prompt is written the CLI has no turn to wind down, so a failure stops it at once. */
  #delivered = false;
  /** Set when the completed turn's process stays in its session as the thread's warm writer. */
  kept = false;
  #finish!: () => void;
  /** Resolves when the CLI's `result` line was read. */
  readonly #finished = new Promise<void>((resolve) => (this.#finish = resolve));

  constructor(
    private readonly launcher: Launcher,
    private readonly proc: StreamJsonProcess,
    private readonly request: RunRequest,
    private readonly sink: EventSink,
  ) {
    const redact = (text: string) => launcher.redactor.redactText(text);
    this.mapper = new TurnMapper(sink, launcher.dialect.id, redact, undefined, request.workspace);
    this.malformed = new MalformedFrameNotices((event) => sink.emit(event), launcher.dialect.name);
    this.#broker = new PermissionBroker({ dialect: launcher.dialect, process: proc, request, mapper: this.mapper, redact });
  }

  /** Initializes a started process, writes the user line and waits for the turn's outcome. */
  async play(line: UserLine, claimed: boolean, signal: AbortSignal): Promise<RunResponse> {
    const { launcher, proc, request, mapper } = this;
    if (!claimed) {
      const instructions = request.resources.instructions;
      const reply = await launcher.initialize(proc, { signal, hasPrompt: true, ...(instructions !== undefined ? { appendSystemPrompt: instructions } : {}) });
      // A CLI that cannot call its model would only answer the prompt with a login error: refused before delivery.
      if (launcher.dialect.signedOut?.(reply) === true) {
        throw new AuthRequiredError(`${launcher.dialect.name} is not signed in and has no API key`, { remedy: launcher.dialect.login });
      }
    }
    await proc.attach(this.#read);
    signal.throwIfAborted();
    request.markDelivered();
    this.#delivered = true;
    await proc.send(line).catch(() => undefined); // an exit is reported below, with its status

    const aborted = abortion(signal);
    const ended = await Promise.race([this.#finished.then(() => "result" as const), proc.ended.then(() => "exit" as const), aborted.promise.then(() => "abort" as const)]).finally(
      aborted.dispose,
    );
    // A result read before the cancel is the outcome; the consumer is announcing it.
    if (mapper.result === undefined && (ended === "abort" || signal.aborted)) {
      this.#interrupting = true;
      await this.#interrupt();
      throw signal.reason;
    }
    if (mapper.result !== undefined) await this.#finished;
    if (this.#completion === undefined) await this.malformed.flush();
    const outcome = await (this.#completion ?? complete(launcher, proc, mapper, this.sink));
    // A process started with a run's --json-schema would force it on the next turn: never kept.
    this.kept = request.keepWarm === true && request.outputSchema === undefined && outcome.providerSessionId !== undefined && proc.alive && !signal.aborted;
    return outcome;
  }

  /** The process's consumer while the turn runs. */
  readonly #read = (item: Incoming): void | Promise<void> => {
    // The turn is over: what the CLI says while it retires is no event of the run.
    if (this.#completion !== undefined) return;
    // Streamed deltas, the bulk of a turn, go straight to the mapper: no promise unless the sink waits.
    if (item.kind === "message" && item.message.type === "stream_event") return this.mapper.handle(item.message);
    return this.#receive(item);
  };

  async #receive(item: Incoming): Promise<void> {
    if (item.kind === "malformed") {
      await this.malformed.report(item.code);
      return;
    }
    const message = item.message;
    if (message.type === "control_request") return this.#broker.receive(message);
    if (message.type === "control_cancel_request") return this.#broker.withdraw(str(message.request_id));
    const completes = message.type === "result" && !this.#interrupting;
    await this.mapper.handle(message);
    if (completes) {
      await this.malformed.flush();
      this.#completion = complete(this.launcher, this.proc, this.mapper, this.sink);
      await this.#completion.catch(() => undefined);
    }
    if (message.type === "result") this.#finish();
  }

  /** Asks the CLI to stop the turn (where the dialect can take control requests yet) and gives it the policy's short grace. */
  async #interrupt(): Promise<void> {
    const { proc, mapper } = this;
    if (proc.alive && (!this.launcher.dialect.controlNeedsSession || mapper.sessionOpen)) {
      await interruptWithinGrace(() => proc.request({ subtype: "interrupt" }, { timeoutMs: INTERRUPT_ANSWER_MS }), Promise.race([this.#finished, proc.ended]));
    }
    await mapper.closeOpenItems().catch(() => undefined);
  }

  /** Detaches the run from the process and lets the process go the way the turn ended. */
  async release(): Promise<void> {
    this.#broker.close();
    // Whatever the CLI still writes (state changes after the result) no longer belongs to the run.
    await this.proc.attach(undefined);
    // A CLI that timed out or failed its handshake is hung or broken: it gets no grace to exit,
    // and a cancelled turn is escalated now. A finished turn is the run's outcome at once: its
    // process retires in the background (the launcher owns it until it exits; close() reaps it).
    if (this.kept) {
      // The thread's warm writer holds the process now; core retires it.
    } else if (!this.#delivered || this.#interrupting) await this.proc.stop();
    else if (this.mapper.result !== undefined) void this.launcher.retire(this.proc).catch(() => undefined);
    else await this.launcher.retire(this.proc);
  }
}

/** Resolves when `signal` aborts; `dispose` drops the listener. */
function abortion(signal: AbortSignal): { promise: Promise<void>; dispose: () => void } {
  let onAbort = () => {};
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}
