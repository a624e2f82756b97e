/**
 * The host bridge of a run (DESIGN §7): a driver's approval requests and user questions go to the
 * host's handlers, or — without a handler — to the policy, which approves nothing on the host's
 * behalf. Every request and its resolution are published as events, redacted; a cancelled run
 * denies or declines at once, and a handler that ignores the signal cannot hold it open.
 */
import type { RunTimeline } from "../events/timeline.js";
import type { ApprovalDecision } from "../events/types.js";
import type { Redactor } from "../redact/redact.js";
import type { ApprovalHandler, ApprovalRequest, UserInputAnswer, UserInputHandler, UserInputRequest } from "../driver/vocabulary.js";
import { raceAbort } from "./prepare.js";

export interface HostBridgeOptions {
  timeline: RunTimeline;
  /** The run's current redactor. */
  redactor(): Redactor;
  onApproval?: ApprovalHandler | undefined;
  onUserInput?: UserInputHandler | undefined;
  /** The run's signal. */
  signal: AbortSignal;
}

export interface HostBridge {
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  ask(request: UserInputRequest): Promise<UserInputAnswer>;
}

type DecidedBy = "handler" | "policy" | "cancel";

const CANCELLED = "the run was cancelled";

export function createHostBridge(options: HostBridgeOptions): HostBridge {
  const { timeline, signal } = options;

  /** The handler's decision; a handler that throws (or a cancel) denies the request. */
  const askHandler = async (handler: ApprovalHandler, request: ApprovalRequest): Promise<{ decision: ApprovalDecision; by: DecidedBy }> => {
    let decision: ApprovalDecision;
    try {
      // A handler that ignores the signal must not hold a cancelled run open.
      decision = await raceAbort(handler(request, signal), signal);
    } catch {
      decision = { decision: "deny", message: signal.aborted ? CANCELLED : "the approval handler failed" };
      if (!signal.aborted) {
        await timeline.publish({ type: "notice", level: "warning", code: "approval_handler_failed", message: "the approval handler threw; the request was denied" });
      }
    }
    return { decision, by: signal.aborted ? "cancel" : "handler" };
  };

  const decide = async (request: ApprovalRequest): Promise<{ decision: ApprovalDecision; by: DecidedBy }> => {
    if (signal.aborted) return { decision: { decision: "deny", message: CANCELLED, interrupt: true }, by: "cancel" };
    if (options.onApproval) return askHandler(options.onApproval, request);
    // Without a handler nothing may be approved on the host's behalf; say so, never silently.
    await timeline.publish({ type: "notice", level: "warning", code: "approval_denied_by_policy", message: "no approval handler is configured; the request was denied" });
    return { decision: { decision: "deny", message: "no approval handler is configured" }, by: "policy" };
  };

  return {
    async approve(request) {
      const redactor = options.redactor();
      const safeRequest = redactor.redactValue(request);
      await timeline.publish({ type: "approval.requested", ...withoutInput(safeRequest) });
      const { decision, by } = await decide(safeRequest);
      await timeline.publish({ type: "approval.resolved", requestId: request.requestId, decision: options.redactor().redactValue(decision), by });
      return decision;
    },

    async ask(request) {
      await timeline.publish({ type: "question.requested", requestId: request.requestId, questions: options.redactor().redactValue(request.questions) });
      let answer: UserInputAnswer = { declined: true };
      if (options.onUserInput && !signal.aborted) {
        try {
          answer = await raceAbort(options.onUserInput(options.redactor().redactValue(request), signal), signal);
        } catch {
          answer = { declined: true };
        }
      }
      await timeline.publish({ type: "question.resolved", requestId: request.requestId, answered: !("declined" in answer) });
      return answer;
    },
  };
}

function withoutInput(request: ApprovalRequest): Omit<ApprovalRequest, "input"> {
  const { input: _input, ...rest } = request;
  return rest;
}
