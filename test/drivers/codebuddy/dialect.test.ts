/**
 * The dialect differences of the shared stream-json core, one by one: the permission answer
 * shape, when a tool is started, whether control requests need a session, what a cost of 0
 * means, how sessions are filed, how a CLI is selected on the command line.
 */
import { describe, expect, it } from "vitest";
import { claudeDialect } from "../../../src/drivers/claude/dialect.js";
import { codebuddyDialect } from "../../../src/drivers/codebuddy/dialect.js";
import type { CanUseToolRequest, ResultLine } from "../../../src/drivers/stream-json/wire.js";

const request: CanUseToolRequest = { subtype: "can_use_tool", tool_name: "Write", input: { file_path: "/w/a.txt", content: "x" }, tool_use_id: "call_1" };
const input = { file_path: "/w/a.txt", content: "y" };

describe("permission answer shape", () => {
  it("Claude: behavior allow / deny with message", () => {
    expect(claudeDialect.permissionAnswer({ decision: "allow" }, request, input)).toEqual({ behavior: "allow", updatedInput: input });
    expect(claudeDialect.permissionAnswer({ decision: "deny", message: "no" }, request)).toEqual({ behavior: "deny", message: "no" });
    expect(claudeDialect.permissionAnswer({ decision: "deny", interrupt: true }, request)).toEqual({
      behavior: "deny",
      message: "The host denied this tool use.",
      interrupt: true,
    });
  });

  it("CodeBuddy: allowed true / false with reason, echoing the tool_use_id — never a `behavior` key", () => {
    const allow = codebuddyDialect.permissionAnswer({ decision: "allow" }, request, input);
    const deny = codebuddyDialect.permissionAnswer({ decision: "deny", message: "no" }, request);
    expect(allow).toEqual({ allowed: true, updatedInput: input, tool_use_id: "call_1" });
    expect(deny).toEqual({ allowed: false, reason: "no", tool_use_id: "call_1" });
    // A Claude-shaped answer has no `allowed: true`, which CodeBuddy reads as a denial.
    expect(allow).not.toHaveProperty("behavior");
    expect(claudeDialect.permissionAnswer({ decision: "allow" }, request, input)).not.toHaveProperty("allowed");
  });
});

describe("protocol differences", () => {
  it("routes permission prompts with a flag only for Claude", () => {
    expect(claudeDialect.permissionArgs("default")).toEqual(["--permission-prompt-tool", "stdio", "--permission-mode", "default"]);
    expect(codebuddyDialect.permissionArgs("default")).toEqual(["--permission-mode", "default"]);
  });

  it("orders the tool call and its permission request differently", () => {
    expect(claudeDialect.permissionBeforeToolUse).toBe(false);
    expect(codebuddyDialect.permissionBeforeToolUse).toBe(true);
  });

  it("accepts control requests before the first turn only in Claude", () => {
    expect(claudeDialect.controlNeedsSession).toBe(false);
    expect(codebuddyDialect.controlNeedsSession).toBe(true);
  });

  it("declares CodeBuddy's ask-user-question capability in initialize", () => {
    expect(claudeDialect.initializeRequest({ appendSystemPrompt: "be brief" })).toEqual({ subtype: "initialize", appendSystemPrompt: "be brief" });
    expect(codebuddyDialect.initializeRequest({})).toEqual({ subtype: "initialize", capabilities: { askUserQuestion: true } });
    expect(codebuddyDialect.initializeRequest({ hasPrompt: true })).toMatchObject({ hasPrompt: true });
    expect(claudeDialect.initializeRequest({ hasPrompt: true })).toEqual({ subtype: "initialize" });
  });

  it("reads a cost of 0 as no cost only for CodeBuddy (custom models always report 0)", () => {
    const result = (cost: number): ResultLine => ({ type: "result", subtype: "success", total_cost_usd: cost });
    expect(claudeDialect.costOf(result(0))).toBe(0);
    expect(claudeDialect.costOf(result(0.25))).toBe(0.25);
    expect(codebuddyDialect.costOf(result(0))).toBeUndefined();
    expect(codebuddyDialect.costOf(result(0.25))).toBe(0.25);
  });

  it("files sessions under different project slugs", () => {
    expect(claudeDialect.projectSlug("/home/dev/my.repo")).toBe("-home-dev-my-repo");
    expect(codebuddyDialect.projectSlug("/home/dev/my.repo")).toBe("home-dev-my-repo");
  });

  it("selects isolation of settings files differently", () => {
    expect(claudeDialect.settingSourcesArgs([])).toEqual(["--setting-sources", ""]);
    expect(codebuddyDialect.settingSourcesArgs([])).toEqual(["--setting-sources", "none"]);
    expect(codebuddyDialect.settingSourcesArgs(["user", "project"])).toEqual(["--setting-sources", "user,project"]);
  });

  it("binds a provider through each CLI's own variables, dropping Claude's inherited bearer token", () => {
    const binding = { baseUrl: "http://127.0.0.1:1", apiKeyEnv: "K" };
    expect(claudeDialect.providerEnv(binding, "k")).toEqual({ ANTHROPIC_BASE_URL: "http://127.0.0.1:1", ANTHROPIC_API_KEY: "k", ANTHROPIC_AUTH_TOKEN: undefined });
    expect(codebuddyDialect.providerEnv(binding, "k")).toEqual({ CODEBUDDY_BASE_URL: "http://127.0.0.1:1", CODEBUDDY_API_KEY: "k" });
  });

  it("recognises each CLI's missing-login result", () => {
    expect(claudeDialect.failureCode({ type: "result", subtype: "success", is_error: true }, "authentication_failed")).toEqual({ code: "auth_required", retryable: false });
    expect(
      codebuddyDialect.failureCode({ type: "result", subtype: "error_during_execution", errors: ["Authentication required. Please use /login command to sign in"] }, undefined),
    ).toEqual({ code: "auth_required", retryable: false });
  });

  it("declares inputs each backend takes natively", () => {
    expect(claudeDialect.inputs.file.modes).toEqual(["native"]);
    expect(codebuddyDialect.inputs.file.modes).toEqual([]);
    expect(codebuddyDialect.inputs.image.modes).toEqual(["native"]);
    expect(claudeDialect.inputs.audio.modes).toEqual([]);
  });
});
