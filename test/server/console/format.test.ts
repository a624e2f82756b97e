import { describe, expect, it } from "vitest";
import { describeNotice, formatGate, formatTokens, formatUsd } from "../../../console/src/format.js";
import type { SessionNotice } from "../../../console/src/wire.js";

describe("console formats", () => {
  it("spend and gate", () => {
    expect([0, 0.0012, 0.5, 12.345].map(formatUsd)).toEqual(["$0", "$0.0012", "$0.50", "$12.35"]);
    expect([345, 12_300, 4_560_000].map(formatTokens)).toEqual(["345 tok", "12.3k tok", "4.56M tok"]);
    expect(formatGate({ open: true })).toBe("open");
    expect(formatGate({ open: false, by: "pause", reason: "deploy", since: "2026-01-01T00:00:00Z" })).toBe("pause: deploy");
  });

  it("one line per session notice", () => {
    const cases: [SessionNotice, string][] = [
      [{ type: "session.state", state: "sleeping", reason: "idle_timeout" }, "state → sleeping (idle_timeout)"],
      [{ type: "session.prompt_queued", promptId: "p1", from: "ops", wake: false }, "prompt p1 queued from ops (no wake)"],
      [{ type: "session.prompt_dropped", promptId: "p2", reason: "inbox_full" }, "prompt p2 dropped: inbox full"],
      [{ type: "session.run_admitted", runId: "r1", promptIds: ["a", "b"] }, "run r1 admitted (2 prompts)"],
      [{ type: "session.steer", promptId: "p3", delivery: "native" }, "steer p3 delivered to the running turn"],
      [{ type: "session.follow_up", promptId: "p4", delivery: "next_run" }, "follow-up p4 queued for the next run"],
      [{ type: "session.configured", settings: { model: "gpt-5" } }, "configured: model gpt-5, effort default"],
      [{ type: "session.gate", gate: { open: false, by: "hold", reason: "lunch", since: "x" } }, "gate hold: lunch"],
      [{ type: "session.budget", guardrails: { spentUsd: 1.5, spentTokens: 2000, budget: {}, tripped: { ceiling: "sessionUsd", at: "x" } } }, "spend $1.50 · 2.0k tok — sessionUsd ceiling tripped"],
      [{ type: "session.run_interrupted", runId: "r2", code: "host_restart" }, "run r2 interrupted by a host restart"],
      [{ type: "session.handoff", fromThreadId: "t1", toThreadId: "t2", reason: "provider_session_missing" }, "handoff to a new thread (provider session missing)"],
      [{ type: "session.error", code: "provider_error", message: "boom" }, "error provider_error: boom"],
    ];
    for (const [notice, line] of cases) expect(describeNotice(notice)).toBe(line);
  });
});
