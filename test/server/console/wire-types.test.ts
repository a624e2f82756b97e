/**
 * The console reads the library's own session and server shapes from the Node-free modules
 * (src/session/view-types.ts, src/server/public-types.ts); these type-level checks fail the
 * typecheck if the console's names stop being the ones src/session/types.ts and the server export.
 */
import { describe, expectTypeOf, it } from "vitest";
import type * as Console from "../../../console/src/wire.js";
import type { GateState, Guardrails, SessionNotice, SessionSettings, SessionState, SessionStatus, SleepReason } from "../../../src/session/types.js";
import type { BudgetCeiling } from "../../../src/errors/index.js";
import type { EventPayloads } from "../../../src/events/types.js";
import type * as Server from "../../../src/server/index.js";

describe("console wire types", () => {
  it("are the library's session types", () => {
    expectTypeOf<Console.SessionNotice>().toEqualTypeOf<SessionNotice>();
    expectTypeOf<Console.SessionStatus>().toEqualTypeOf<SessionStatus>();
    expectTypeOf<Console.SessionState>().toEqualTypeOf<SessionState>();
    expectTypeOf<Console.SleepReason>().toEqualTypeOf<SleepReason>();
    expectTypeOf<Console.GateState>().toEqualTypeOf<GateState>();
    expectTypeOf<Console.Guardrails>().toEqualTypeOf<Guardrails>();
    expectTypeOf<Console.SessionSettings>().toEqualTypeOf<SessionSettings>();
    expectTypeOf<Console.BudgetCeiling>().toEqualTypeOf<BudgetCeiling>();
  });

  it("carry the approval and question request fields the events carry", () => {
    expectTypeOf<Omit<Console.PendingApproval, "runId">>().toEqualTypeOf<EventPayloads["approval.requested"]>();
    expectTypeOf<Omit<Console.PendingQuestion, "runId">>().toEqualTypeOf<EventPayloads["question.requested"]>();
  });

  it("name the same fields as the server's response schemas", () => {
    // The server's zod schemas are looser (plain strings for the library's unions), so the fields are compared by name.
    expectTypeOf<Exclude<keyof Console.SessionView, keyof Server.SessionView>>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<keyof Server.SessionView, keyof Console.SessionView>>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<keyof Console.PendingApproval, keyof Server.PendingApproval>>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<keyof Console.PendingQuestion, keyof Server.PendingQuestion>>().toEqualTypeOf<never>();
    expectTypeOf<Console.QueuedPrompt>().toEqualTypeOf<Server.QueuedPromptView>();
  });
});
