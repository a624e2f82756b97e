/**
 * CodeBuddy runs MCP tools that connected after the turn's tool list was made through its
 * `DeferExecuteTool` (`{toolName, params}`): the events name the MCP tool it runs, with its
 * arguments, as they would for a direct call.
 */
import { describe, expect, it } from "vitest";
import { toolCompleted, toolStarted, type ToolCall } from "../../../src/drivers/stream-json/tool-calls.js";
import { effectiveTool } from "../../../src/drivers/stream-json/tools.js";

const call = (name: string, input: unknown): ToolCall => ({ name, input, started: false, denied: false, completed: false });

describe("DeferExecuteTool", () => {
  it("is reported as the MCP call it runs", async () => {
    const started = await toolStarted("c1", call("DeferExecuteTool", { toolName: "mcp__host__lookup", params: { key: "k" } }), undefined, (text) => text);
    expect(started).toMatchObject({ kind: "mcp", name: "mcp__host__lookup", mcp: { server: "host", tool: "lookup" }, rawInput: { key: "k" } });
    const completed = await toolCompleted("c1", call("DeferExecuteTool", { toolName: "mcp__host__lookup", params: {} }), { content: "v" }, undefined, undefined, (text) => text);
    expect(completed).toMatchObject({ status: "completed", output: "v" });
  });

  it("without a tool name stays itself", () => {
    expect(effectiveTool("DeferExecuteTool", { params: {} })).toEqual({ name: "DeferExecuteTool", input: { params: {} } });
    expect(effectiveTool("DeferExecuteTool", null)).toEqual({ name: "DeferExecuteTool", input: null });
    expect(effectiveTool("Bash", { toolName: "x" })).toEqual({ name: "Bash", input: { toolName: "x" } });
  });

  it("a deferred tool with no params runs with empty arguments", () => {
    expect(effectiveTool("DeferExecuteTool", { toolName: "mcp__a__b" })).toEqual({ name: "mcp__a__b", input: {} });
  });
});
