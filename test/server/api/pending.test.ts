/**
 * Pending requests as the server derives them from a session's log: requested minus resolved, of
 * the run in flight only; a run's end or its interruption by a restart clears its requests; an
 * entry seen twice (a replay overlapping the live tail) counts once.
 */
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/session/types.js";
import { PendingRequests } from "../../../src/server/pending.js";

let seq = 0;
const entry = (event: Record<string, unknown>): SessionEvent => ({ seq: ++seq, sessionId: "s", at: 0, event: { seq, at: 0, ...event } as unknown as SessionEvent["event"] });
const approval = (runId: string, requestId: string) =>
  entry({ type: "approval.requested", runId, requestId, kind: "command", summary: "ls", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] });
const question = (runId: string, requestId: string) => entry({ type: "question.requested", runId, requestId, questions: [{ id: "q", question: "?" }] });

describe("PendingRequests", () => {
  it("lists what was requested and not resolved, for the run in flight only", () => {
    const pending = new PendingRequests();
    for (const e of [approval("r1", "a1"), approval("r1", "a2"), question("r1", "q1"), entry({ type: "approval.resolved", runId: "r1", requestId: "a1", decision: { decision: "allow" }, by: "stream" })]) pending.observe(e);
    expect(pending.snapshot("r1")).toMatchObject({ approvals: [{ requestId: "a2", runId: "r1", summary: "ls" }], questions: [{ requestId: "q1" }] });
    expect(pending.snapshot("r2")).toEqual({ approvals: [], questions: [] });
    expect(pending.snapshot(undefined)).toEqual({ approvals: [], questions: [] });
    pending.observe(entry({ type: "question.resolved", runId: "r1", requestId: "q1", answered: false, by: "stream" }));
    expect(pending.snapshot("r1").questions).toEqual([]);
  });

  it("clears a run's requests when it ends or a restart interrupts it", () => {
    const pending = new PendingRequests();
    for (const e of [approval("r1", "a1"), question("r2", "q2"), approval("r3", "a3")]) pending.observe(e);
    pending.observe(entry({ type: "run.cancelled", runId: "r1" }));
    pending.observe(entry({ type: "session.run_interrupted", runId: "r2", code: "host_restart" }));
    expect(pending.snapshot("r1")).toEqual({ approvals: [], questions: [] });
    expect(pending.snapshot("r2")).toEqual({ approvals: [], questions: [] });
    expect(pending.snapshot("r3").approvals.map((a) => a.requestId)).toEqual(["a3"]);
  });

  it("takes an entry once: a replay that overlaps what was seen does not bring a resolved request back", () => {
    const pending = new PendingRequests();
    const requested = approval("r1", "a1");
    const resolved = entry({ type: "approval.resolved", runId: "r1", requestId: "a1", decision: { decision: "deny" }, by: "stream" });
    for (const e of [requested, resolved, requested]) pending.observe(e);
    expect(pending.snapshot("r1").approvals).toEqual([]);
    expect(pending.seen).toBe(resolved.seq);
  });
});
