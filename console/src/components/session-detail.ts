/**
 * The selected session: its controls, queued messages, pending approvals and questions, live
 * timeline and inspection. Mounted per session (keyed by id), so switching sessions closes the old stream.
 */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { Api, ResumeMode } from "../api.js";
import type { ApprovalAnswer } from "../approvals.js";
import { followEvents, type StreamStatus } from "../event-stream.js";
import { applyEntries, EMPTY_TIMELINE, mergePending, requestKey, type ToolItem } from "../timeline.js";
import type { Inspection, SessionView } from "../wire.js";
import { ApprovalCard } from "./approval-card.js";
import { BudgetCard } from "./budget-card.js";
import { Controls, type ControlActions } from "./controls.js";
import { InspectionView } from "./inspection-view.js";
import { QuestionForm } from "./question-form.js";
import { QueueView } from "./queue-view.js";
import { TimelineView } from "./timeline-view.js";

/** The stream's state as the header shows it: `ended` once the session is archived. */
export type StreamIndicator = StreamStatus | "idle" | "ended";

export interface SessionDetailProps {
  id: string;
  session: SessionView | undefined;
  api: Api;
  token: string;
  /** Run an action, reporting its failure; rejects again so a form can keep its input. */
  run(work: () => Promise<unknown>): Promise<void>;
  onStreamStatus(status: StreamIndicator, detail?: { attempt: number; delayMs: number }): void;
  onChanged(): void;
  onFatal(message: string): void;
}

export function SessionDetail({ id, session, api, token, run, onStreamStatus, onChanged, onFatal }: SessionDetailProps): VNode {
  const [timeline, setTimeline] = useState(EMPTY_TIMELINE);
  const [inspection, setInspection] = useState<Inspection | undefined>(undefined);
  const [inspecting, setInspecting] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    let ended = false;
    // Set on unmount: the old stream's late callbacks (its final "closed") must not touch the next session's view.
    let disposed = false;
    void followEvents({
      url: api.eventsUrl(id),
      token,
      after: 0,
      signal: abort.signal,
      onEntries: (entries) => {
        if (disposed) return;
        setTimeline((prev) => applyEntries(prev, entries));
        // Archiving is final: nothing follows it, so the stream is not kept open (or retried).
        if (entries.some((e) => e.event.type === "session.state" && e.event.state === "archived")) {
          ended = true;
          abort.abort();
        }
        // Notices about state, gate or spend change the session row: refresh it now, not at the next poll.
        if (entries.some((e) => e.event.type === "session.state" || e.event.type === "session.gate" || e.event.type === "session.budget" || e.event.type === "session.prompt_queued")) onChanged();
      },
      onStatus: (status, detail) => {
        if (!disposed) onStreamStatus(ended && status === "closed" ? "ended" : status, detail);
      },
      onFatal: (error) => {
        if (!disposed) onFatal(`${error.code}: ${error.message}`);
      },
    });
    api.pending(id).then(
      (pending) => {
        if (!disposed) setTimeline((prev) => mergePending(prev, pending));
      },
      () => undefined,
    );
    return () => {
      disposed = true;
      abort.abort();
      onStreamStatus("idle");
    };
  }, [id]);

  const tools = useMemo(() => {
    const byCall = new Map<string, ToolItem>();
    for (const item of timeline.items) if (item.kind === "tool") byCall.set(`${item.runId}:${item.callId}`, item);
    return byCall;
  }, [timeline.items]);

  const after = (work: () => Promise<unknown>) => async (): Promise<void> => {
    await run(work);
    onChanged();
  };
  const actions: ControlActions = {
    submit: (text) => after(() => api.submit(id, text))(),
    steer: (text) => after(() => api.steer(id, text))(),
    followUp: (text) => after(() => api.followUp(id, text))(),
    interrupt: after(() => api.interrupt(id)),
    hold: (reason) => after(() => api.hold(id, reason))(),
    pause: (reason) => after(() => api.pause(id, reason))(),
    resume: (mode: ResumeMode, message: string) => after(() => api.resume(id, mode, message))(),
    archive: after(() => api.archive(id)),
    configure: (settings) => after(() => api.configure(id, settings))(),
  };
  const loadInspection = async (): Promise<void> => {
    setInspecting(true);
    try {
      await run(async () => setInspection(await api.inspection(id)));
    } catch {
      // Reported by run().
    } finally {
      setInspecting(false);
    }
  };

  return html`<div class="detail" data-testid="session-detail" data-session-id=${id}>
    <header class="detail-head">
      <h2>${id}</h2>
      ${session !== undefined ? html`<span class=${`badge state-${session.state}`}>${session.state}</span> <span class="muted">${session.agent}</span>` : null}
    </header>
    <${Controls} session=${session} actions=${actions} />
    ${session !== undefined ? html`<${QueueView} id=${id} queued=${session.queued} api=${api} />` : null}
    <div class="pending" aria-live="polite">
      ${session !== undefined && session.guardrails.tripped !== undefined
        ? html`<${BudgetCard}
            guardrails=${session.guardrails}
            onRaise=${(amount: { usd?: number; tokens?: number }) => after(() => api.addBudget(id, amount))()}
            onResetRun=${after(() => api.resetRunCeiling(id))}
          />`
        : null}
      ${timeline.approvals.map(
        (approval) =>
          html`<${ApprovalCard}
            key=${requestKey(approval)}
            approval=${approval}
            tool=${approval.callId !== undefined ? tools.get(`${approval.runId}:${approval.callId}`) : undefined}
            onAnswer=${(requestId: string, answer: ApprovalAnswer) => run(() => api.approve(id, requestId, answer)).catch(() => undefined)}
          />`,
      )}
      ${timeline.questions.map(
        (pending) =>
          html`<${QuestionForm}
            key=${requestKey(pending)}
            pending=${pending}
            onAnswer=${(requestId: string, answers: Record<string, string | string[]>) => run(() => api.answer(id, requestId, answers))}
            onDecline=${(requestId: string) => run(() => api.decline(id, requestId))}
          />`,
      )}
    </div>
    <${TimelineView} items=${timeline.items} />
    <${InspectionView} inspection=${inspection} loading=${inspecting} onLoad=${loadInspection} />
  </div>`;
}
