/**
 * The driver declares the stream-json shapes it reads and writes itself (the published package
 * must not depend on the Agent SDK for types). This file makes the type checker compare them with
 * the Agent SDK's exported types: `npx tsc --noEmit -p .` fails when the SDK's wire drifts from
 * what the driver writes, or when a field the driver reads changes type.
 */
import type {
  AccountInfo,
  ModelInfo,
  ModelUsage,
  PermissionResult,
  SDKControlInitializeResponse,
  SDKControlRequest,
  SDKControlResponse,
  SDKResultMessage,
  SDKUserMessage,
  SlashCommand,
} from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, expectTypeOf, it } from "vitest";
import { claudeDialect } from "../../../src/drivers/claude/dialect.js";
import type { ControlResponseLine, ResultLine, UserLine, WireModelUsage } from "../../../src/drivers/stream-json/wire.js";

describe("stream-json wire types against the Agent SDK's", () => {
  it("writes user lines and control responses the SDK's types accept", () => {
    expectTypeOf<UserLine>().toExtend<SDKUserMessage>();
    expectTypeOf<ControlResponseLine>().toExtend<SDKControlResponse>();
    expectTypeOf<{ type: "control_request"; request_id: string; request: { subtype: "interrupt" } }>().toExtend<SDKControlRequest>();
    expectTypeOf<{ type: "control_request"; request_id: string; request: { subtype: "initialize"; appendSystemPrompt: string } }>().toExtend<SDKControlRequest>();
  });

  it("answers can_use_tool in the SDK's PermissionResult shape", () => {
    const allow = claudeDialect.permissionAnswer({ decision: "allow" }, { subtype: "can_use_tool", tool_name: "Write", input: {} }, { a: 1 });
    const deny = claudeDialect.permissionAnswer({ decision: "deny", message: "no" }, { subtype: "can_use_tool", tool_name: "Write", input: {} });
    const asPermission = (value: unknown): PermissionResult => value as PermissionResult;
    expect(asPermission(allow).behavior).toBe("allow");
    expect(asPermission(deny)).toEqual({ behavior: "deny", message: "no" });
  });

  it("reads result fields with the SDK's types", () => {
    expectTypeOf<SDKResultMessage["subtype"]>().toExtend<ResultLine["subtype"]>();
    expectTypeOf<SDKResultMessage["is_error"]>().toExtend<ResultLine["is_error"]>();
    expectTypeOf<SDKResultMessage["total_cost_usd"]>().toExtend<ResultLine["total_cost_usd"]>();
    expectTypeOf<SDKResultMessage["session_id"]>().toExtend<ResultLine["session_id"]>();
    expectTypeOf<ModelUsage>().toExtend<WireModelUsage>();
  });

  it("reads initialize fields with the SDK's types", () => {
    expectTypeOf<SDKControlInitializeResponse["commands"]>().toEqualTypeOf<SlashCommand[]>();
    expectTypeOf<SlashCommand>().toHaveProperty("argumentHint").toEqualTypeOf<string>();
    expectTypeOf<ModelInfo>().toHaveProperty("value").toEqualTypeOf<string>();
    expectTypeOf<ModelInfo>().toHaveProperty("supportedEffortLevels");
    expectTypeOf<AccountInfo>().toHaveProperty("apiKeySource").toEqualTypeOf<string | undefined>();
    expectTypeOf<SDKControlInitializeResponse>().toHaveProperty("claude_code_version").toEqualTypeOf<string | undefined>();
  });
});
