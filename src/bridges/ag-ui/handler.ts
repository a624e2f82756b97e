/**
 * The AG-UI endpoint: a web `Request` → `Response` handler taking an AG-UI `RunAgentInput`
 * (validated by `@ag-ui/core`'s own schema) and answering with the run's AG-UI events as
 * Server-Sent Events, the encoding AG-UI's `HttpAgent` reads. The input's `threadId` is the
 * agent's thread (started on first use, resumed after), its last user message the prompt.
 * Approvals and questions are AG-UI interrupts: the AG-UI run finishes with an interrupt outcome
 * while the agent's run waits, and the client's next run answers it through `resume`.
 */
import type { Agent } from "../../agent/agent.js";
import type { CallOptions } from "../../agent/options.js";
import type { RunStream } from "../../agent/run-stream.js";
import type { Thread } from "../../agent/thread.js";
import { ResponseRejectedError, ThreadExistsError, ThreadNotFoundError } from "../../errors/index.js";
import { AgUiInputError, clientState, promptOf, type AgUiRunInput } from "./input.js";
import { deliverAnswer, resumeAnswer, ResumeRejected } from "./interrupts.js";
import { PausableRun } from "./paused-run.js";
import { loadAgUiSchemas, type AgUiSchemas, type AgUiSchemasImporter } from "./schemas.js";
import { errorEvents, jsonError, sseResponse } from "./sse.js";

const DEFAULT_INTERRUPT_TIMEOUT_MS = 10 * 60_000;

export interface AgUiHandlerOptions {
  agent: Agent;
  /** `true` (default): the input's `threadId` is an agent thread; `false`: every input is a fresh `agent.stream()`. */
  threads?: boolean;
  /**
   * The call options of each run (model, policy, metadata, `approvalTimeoutMs`, …). `onApproval`
   * and `onUserInput` default to `"stream"`, which makes approvals and questions AG-UI
   * interrupts; a handler function given here answers them in the host instead.
   */
  callOptions?: (input: AgUiRunInput) => CallOptions | Promise<CallOptions>;
  /** How long a run paused on an interrupt waits for the resuming request before it is cancelled. Default 10 minutes. */
  interruptTimeoutMs?: number;
  /** How `@ag-ui/core/schemas` is imported (tests). */
  importer?: AgUiSchemasImporter;
}

/** The endpoint: a web-standard handler, and `close()` cancelling every run it started. */
export interface AgUiHandler {
  (request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Create the AG-UI endpoint. Rejects with `ExecutableNotFoundError` naming
 * `npm install @ag-ui/core` when the package is missing.
 *
 * @example
 * ```ts
 * const handle = await agUiHandler({ agent });
 * serve({ fetch: handle, port: 8000 });   // any server speaking web Request/Response
 * ```
 */
export async function agUiHandler(options: AgUiHandlerOptions): Promise<AgUiHandler> {
  const schemas = await loadAgUiSchemas(options.importer);
  const endpoint = new Endpoint(options, schemas);
  const handle = (request: Request) => endpoint.handle(request);
  return Object.assign(handle, { close: () => endpoint.close() });
}

interface Parked {
  run: PausableRun;
  timer: ReturnType<typeof setTimeout>;
}

class Endpoint {
  readonly #options: AgUiHandlerOptions;
  readonly #schemas: AgUiSchemas;
  readonly #timeoutMs: number;
  /** Runs waiting for a resume, by interrupt id (the request id). */
  readonly #parked = new Map<string, Parked>();
  readonly #runs = new Set<PausableRun>();

  constructor(options: AgUiHandlerOptions, schemas: AgUiSchemas) {
    this.#options = options;
    this.#schemas = schemas;
    this.#timeoutMs = options.interruptTimeoutMs ?? DEFAULT_INTERRUPT_TIMEOUT_MS;
  }

  async handle(request: Request): Promise<Response> {
    if (request.method !== "POST") return jsonError(405, "method_not_allowed", "POST an AG-UI RunAgentInput");
    try {
      const input = this.#parse(await request.json().catch(() => undefined));
      return input.resume !== undefined && input.resume.length > 0 ? this.#resume(input) : await this.#start(input);
    } catch (error) {
      if (error instanceof AgUiInputError) return jsonError(error.status, "invalid_input", error.message);
      throw error;
    }
  }

  async close(): Promise<void> {
    for (const parked of this.#parked.values()) clearTimeout(parked.timer);
    this.#parked.clear();
    await Promise.allSettled([...this.#runs].map((run) => run.cancel("the AG-UI endpoint closed")));
  }

  #parse(body: unknown): AgUiRunInput {
    if (body === undefined) throw new AgUiInputError(400, "the body is not JSON");
    const parsed = this.#schemas.RunAgentInputSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.map(String).join(".") || "(input)"}: ${issue.message}`);
      throw new AgUiInputError(400, `not an AG-UI RunAgentInput: ${issues.join("; ")}`);
    }
    return parsed.data as AgUiRunInput;
  }

  async #start(input: AgUiRunInput): Promise<Response> {
    const prompt = promptOf(input);
    // A new message on a thread whose run waits for an interrupt abandons that run.
    await Promise.all([...this.#parked.entries()].filter(([, parked]) => parked.run.threadId === input.threadId).map(([id]) => this.#expire(id, "the AG-UI client started a new run on the thread")));
    const call: CallOptions = { onApproval: "stream", onUserInput: "stream", ...(await this.#options.callOptions?.(input)) };
    let stream: RunStream;
    try {
      stream = this.#options.threads === false ? this.#options.agent.stream(prompt, call) : (await threadFor(this.#options.agent, input.threadId)).stream(prompt, call);
    } catch (error) {
      return sseResponse(errorEvents(input, error));
    }
    const run = new PausableRun(stream, {
      threadId: input.threadId,
      interruptApprovals: call.onApproval === "stream",
      interruptQuestions: call.onUserInput === "stream",
      interruptTimeoutMs: this.#timeoutMs,
      onSegmentEnd: (ended, requestId) => this.#segmentEnded(ended, requestId),
    });
    this.#runs.add(run);
    return this.#serve(run, input);
  }

  #resume(input: AgUiRunInput): Response {
    const entries = input.resume ?? [];
    const parked = entries.map((entry) => this.#parked.get(entry.interruptId));
    const run = parked[0]?.run;
    if (run === undefined || parked.some((p) => p?.run !== run) || run.threadId !== input.threadId) {
      throw new AgUiInputError(409, "no paused run on this thread waits for these interrupts (answered already, expired, or of another run)");
    }
    const answers = entries.map((entry) => {
      try {
        return { id: entry.interruptId, answer: resumeAnswer(run.reasons.get(entry.interruptId) ?? "", entry) };
      } catch (error) {
        throw error instanceof ResumeRejected ? new AgUiInputError(400, error.message) : error;
      }
    });
    for (const { id, answer } of answers) {
      try {
        deliverAnswer(run.stream, id, answer);
      } catch (error) {
        // Settled meanwhile (a timeout, a cancel): the run goes on and its events say how.
        if (!(error instanceof ResponseRejectedError) || error.code === "response_invalid") throw new AgUiInputError(400, error instanceof Error ? error.message : String(error));
      }
      this.#unpark(id);
      run.reasons.delete(id);
    }
    return this.#serve(run, input);
  }

  #serve(run: PausableRun, input: AgUiRunInput): Response {
    const segment = run.segment(input.runId, input, clientState(input));
    // The client went away mid-run: the run is cancelled (a paused run stays parked).
    return sseResponse(segment, () => (run.ended || [...this.#parked.values()].some((p) => p.run === run) ? undefined : run.cancel("the AG-UI client disconnected")));
  }

  #segmentEnded(run: PausableRun, requestId: string | undefined): void {
    if (requestId === undefined) {
      this.#runs.delete(run);
      return;
    }
    const timer = setTimeout(() => void this.#expire(requestId, "the AG-UI interrupt expired"), this.#timeoutMs);
    timer.unref?.();
    this.#parked.set(requestId, { run, timer });
  }

  #unpark(requestId: string): void {
    const parked = this.#parked.get(requestId);
    if (parked) clearTimeout(parked.timer);
    this.#parked.delete(requestId);
  }

  async #expire(requestId: string, reason: string): Promise<void> {
    const parked = this.#parked.get(requestId);
    if (parked === undefined) return;
    this.#unpark(requestId);
    await parked.run.cancel(reason);
  }
}

/** The agent's thread `id`: resumed when stored, started otherwise. */
async function threadFor(agent: Agent, id: string): Promise<Thread> {
  try {
    return await agent.resumeThread(id);
  } catch (error) {
    if (!(error instanceof ThreadNotFoundError)) throw error;
  }
  try {
    return await agent.startThread({ id });
  } catch (error) {
    // Started by a concurrent request meanwhile.
    if (error instanceof ThreadExistsError) return agent.resumeThread(id);
    throw error;
  }
}

