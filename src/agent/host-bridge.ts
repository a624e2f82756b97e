/**
 * The host bridge of a run (DESIGN §7): a driver's approval requests and user questions go to the
 * host. `approval.requested` / `question.requested` is published first; then the request waits for
 * whichever comes first — the host's handler, the stream's `respond()` / `answer()` / `decline()`,
 * a cancel, or the host's `approvalTimeoutMs` — and the first one settles it (later ones are
 * ignored, or refused with a typed error when they come from the stream). When no one can answer
 * (no handler, and no stream the host answers from) the policy denies at once, never silently.
 * Every request and its resolution are published as events, redacted.
 */
import type { RunTimeline } from "../events/timeline.js";
import type { ApprovalDecision, ApprovalOption, ApprovalResponse, Question, RequestResolver } from "../events/types.js";
import type { NoticeCode } from "../events/notice-codes.js";
import type { Redactor } from "../redact/redact.js";
import { ResponseRejectedError } from "../errors/index.js";
import type { ApprovalHandler, ApprovalRequest, UserInputAnswer, UserInputHandler, UserInputRequest } from "../driver/vocabulary.js";
import { checkAnswers, normalizeDecision } from "./host-answers.js";

export interface HostBridgeOptions {
  timeline: RunTimeline;
  /** The run's current redactor. */
  redactor(): Redactor;
  onApproval?: ApprovalHandler | "stream" | undefined;
  onUserInput?: UserInputHandler | "stream" | undefined;
  /** `approvalTimeoutMs`; unset or 0 waits without limit. */
  timeoutMs?: number | undefined;
  /** Whether the host reads this run as a stream it can answer from (not under `run()`). */
  streamed(): boolean;
  /** The run's signal. */
  signal: AbortSignal;
}

/** Answers from the stream; each throws `ResponseRejectedError` synchronously when refused. */
export interface HostAnswers {
  respond(requestId: string, response: ApprovalResponse): void;
  answer(requestId: string, answers: Record<string, string | string[]>): void;
  decline(requestId: string): void;
}

export interface HostBridge extends HostAnswers {
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  ask(request: UserInputRequest): Promise<UserInputAnswer>;
}

const CANCELLED = "the run was cancelled";
const TIMED_OUT = "no answer came within approvalTimeoutMs";

interface Notice {
  code: NoticeCode;
  message: string;
}

/** One way a request can be settled; the first to call `settle` wins. */
type Settle<T> = (value: T, by: RequestResolver, notice?: Notice) => boolean;

type PendingEntry =
  | { kind: "approval"; options: readonly ApprovalOption[]; settle: Settle<ApprovalDecision> }
  | { kind: "question"; questions: readonly Question[]; settle: Settle<UserInputAnswer> };

/** How one request is settled besides the stream. */
interface SettleSpec<T> {
  requestId: string;
  entry: (settle: Settle<T>) => PendingEntry;
  /** Calls the host's handler; absent when there is none. */
  handler: (() => Promise<T>) | undefined;
  /** What a handler that throws (or answers unusably) settles with. */
  handlerFailed: { value: T; notice?: Notice };
  /** Whether the host answers from the stream. */
  fromStream: boolean;
  /** What the policy settles with when no one can answer. */
  policy: { value: T; notice?: Notice };
  cancelled: T;
  timedOut: T;
}

export function createHostBridge(options: HostBridgeOptions): HostBridge {
  const { timeline, signal } = options;
  const origin = { runId: timeline.runId, ...(timeline.threadId !== undefined ? { threadId: timeline.threadId } : {}) };
  const pending = new Map<string, PendingEntry>();
  /** Who settled each request that is no longer pending, so a late stream answer says why it is refused. */
  const settledBy = new Map<string, RequestResolver>();

  const settleRequest = async <T>(spec: SettleSpec<T>): Promise<{ value: T; by: RequestResolver }> => {
    if (signal.aborted) return { value: spec.cancelled, by: "cancel" };
    if (spec.handler === undefined && !spec.fromStream) {
      settledBy.set(spec.requestId, "policy");
      if (spec.policy.notice) await timeline.publish({ type: "notice", level: "warning", ...spec.policy.notice });
      return { value: spec.policy.value, by: "policy" };
    }
    let resolve!: (outcome: { value: T; by: RequestResolver; notice?: Notice | undefined }) => void;
    const done = new Promise<{ value: T; by: RequestResolver; notice?: Notice | undefined }>((r) => (resolve = r));
    let settled = false;
    const settle: Settle<T> = (value, by, notice) => {
      if (settled) return false;
      settled = true;
      // Synchronously out of the table: a second answer is refused from this moment on.
      pending.delete(spec.requestId);
      settledBy.set(spec.requestId, by);
      resolve({ value, by, notice });
      return true;
    };
    pending.set(spec.requestId, spec.entry(settle));
    const onAbort = () => settle(spec.cancelled, "cancel");
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = options.timeoutMs ? setTimeout(() => settle(spec.timedOut, "timeout", { code: "approval_timeout", message: TIMED_OUT }), options.timeoutMs) : undefined;
    if (spec.handler) {
      spec.handler().then(
        (value) => settle(value, "handler"),
        () => settle(spec.handlerFailed.value, "handler", spec.handlerFailed.notice),
      );
    }
    const { value, by, notice } = await done;
    signal.removeEventListener("abort", onAbort);
    clearTimeout(timer);
    if (notice && by !== "cancel") await timeline.publish({ type: "notice", level: "warning", ...notice });
    return { value, by };
  };

  const refuse = (requestId: string, wanted: PendingEntry["kind"]): never => {
    const entry = pending.get(requestId);
    if (entry) {
      const use = entry.kind === "approval" ? "respond()" : "answer() or decline()";
      throw new ResponseRejectedError("response_invalid", requestId, `${requestId} is ${entry.kind === "approval" ? "an approval" : "a question"}: use ${use}`);
    }
    const by = settledBy.get(requestId);
    if (by === "timeout") throw new ResponseRejectedError("approval_timeout", requestId, `${requestId} timed out and was ${wanted === "approval" ? "denied" : "declined"}`);
    if (by !== undefined) throw new ResponseRejectedError("request_not_pending", requestId, `${requestId} was already settled (by: ${by})`);
    throw new ResponseRejectedError("request_not_pending", requestId, `no request ${requestId} in run ${timeline.runId}`);
  };
  const approvalEntry = (requestId: string) => {
    const entry = pending.get(requestId);
    return entry?.kind === "approval" ? entry : refuse(requestId, "approval");
  };
  const questionEntry = (requestId: string) => {
    const entry = pending.get(requestId);
    return entry?.kind === "question" ? entry : refuse(requestId, "question");
  };

  return {
    approve: (request) => approve(request, options, origin, settleRequest),
    ask: (request) => ask(request, options, origin, settleRequest),
    respond(requestId, response) {
      const entry = approvalEntry(requestId);
      entry.settle(normalizeDecision(requestId, response, entry.options), "stream");
    },
    answer(requestId, answers) {
      const entry = questionEntry(requestId);
      entry.settle({ answers: checkAnswers(requestId, answers, entry.questions) }, "stream");
    },
    decline(requestId) {
      questionEntry(requestId).settle({ declined: true }, "stream");
    },
  };
}

type SettleRequest = <T>(spec: SettleSpec<T>) => Promise<{ value: T; by: RequestResolver }>;

async function approve(request: ApprovalRequest, options: HostBridgeOptions, origin: { runId: string; threadId?: string }, settleRequest: SettleRequest): Promise<ApprovalDecision> {
  const { timeline, onApproval } = options;
  const safeRequest = options.redactor().redactValue(request);
  // Published before any handler is called, so a host reading the stream sees it first.
  await timeline.publish({ type: "approval.requested", ...withoutInput(safeRequest) });
  const handler = typeof onApproval === "function" ? onApproval : undefined;
  const { value, by } = await settleRequest<ApprovalDecision>({
    requestId: request.requestId,
    entry: (settle) => ({ kind: "approval", options: safeRequest.options, settle }),
    handler: handler && (async () => normalizeDecision(request.requestId, await handler({ ...safeRequest, ...origin }, options.signal), safeRequest.options)),
    handlerFailed: {
      value: { decision: "deny", message: "the approval handler failed" },
      notice: { code: "approval_handler_failed", message: "the approval handler threw or chose an option the request did not offer; the request was denied" },
    },
    fromStream: onApproval === "stream" && options.streamed(),
    policy: {
      value: { decision: "deny", message: "no approval handler is configured" },
      notice: { code: "approval_denied_by_policy", message: onApproval === "stream" ? "approvals are answered from the stream, but run() has none; the request was denied" : "no approval handler is configured; the request was denied" },
    },
    cancelled: { decision: "deny", message: CANCELLED, interrupt: true },
    timedOut: { decision: "deny", message: TIMED_OUT },
  });
  await timeline.publish({ type: "approval.resolved", requestId: request.requestId, decision: options.redactor().redactValue(value), by });
  return value;
}

async function ask(request: UserInputRequest, options: HostBridgeOptions, origin: { runId: string; threadId?: string }, settleRequest: SettleRequest): Promise<UserInputAnswer> {
  const { timeline, onUserInput } = options;
  const safeRequest = options.redactor().redactValue(request);
  await timeline.publish({ type: "question.requested", requestId: request.requestId, questions: safeRequest.questions });
  const handler = typeof onUserInput === "function" ? onUserInput : undefined;
  const declined: UserInputAnswer = { declined: true };
  const { value, by } = await settleRequest<UserInputAnswer>({
    requestId: request.requestId,
    entry: (settle) => ({ kind: "question", questions: safeRequest.questions, settle }),
    handler: handler && (() => handler({ ...safeRequest, ...origin }, options.signal)),
    handlerFailed: { value: declined },
    fromStream: onUserInput === "stream" && options.streamed(),
    policy: { value: declined },
    cancelled: declined,
    timedOut: declined,
  });
  await timeline.publish({ type: "question.resolved", requestId: request.requestId, answered: !("declined" in value), by });
  return value;
}

function withoutInput(request: ApprovalRequest): Omit<ApprovalRequest, "input"> {
  const { input: _input, ...rest } = request;
  return rest;
}
