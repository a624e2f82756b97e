/**
 * The attach server's written-out public types are exactly what its zod schemas validate: a schema
 * that gains, loses or changes a field without the public type (or the reverse) fails to compile.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { agentConfigSchema, serverConfigSchema } from "../../../src/server/config.js";
import type { AgentConfig, PendingApproval, PendingQuestion, QueuedPromptView, ServerConfig, SessionView, ThreadView } from "../../../src/server/public-types.js";
import type { pendingApprovalSchema, pendingQuestionSchema, queuedPromptSchema, sessionViewSchema, threadViewSchema } from "../../../src/server/schemas.js";

describe("attach server public types", () => {
  it("match the schemas that validate them", () => {
    expectTypeOf<z.infer<typeof sessionViewSchema>>().toEqualTypeOf<SessionView>();
    expectTypeOf<z.infer<typeof threadViewSchema>>().toEqualTypeOf<ThreadView>();
    expectTypeOf<z.infer<typeof pendingApprovalSchema>>().toEqualTypeOf<PendingApproval>();
    expectTypeOf<z.infer<typeof pendingQuestionSchema>>().toEqualTypeOf<PendingQuestion>();
    expectTypeOf<z.infer<typeof queuedPromptSchema>>().toEqualTypeOf<QueuedPromptView>();
    expectTypeOf<z.infer<typeof agentConfigSchema>>().toEqualTypeOf<AgentConfig>();
    expectTypeOf<z.infer<typeof serverConfigSchema>>().toEqualTypeOf<ServerConfig>();
  });
});
