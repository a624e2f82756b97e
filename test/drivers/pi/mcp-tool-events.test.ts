/**
 * Tool events of the MCP tools the driver's extension registers in Pi (`mcp__<server>__<tool>`):
 * kind `mcp` with the server and tool (the longest known server name wins), Pi's other tools
 * untouched; and a tool Pi reports failed after the run was cancelled ends as cancelled.
 */
import { describe, expect, it } from "vitest";
import { PiEventMapper } from "../../../src/drivers/pi/events.js";
import { mcpTool } from "../../../src/drivers/pi/tools.js";
import type { DriverEvent } from "../../../src/events/types.js";

function mapperFor(servers: string[]): { mapper: PiEventMapper; events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  return { mapper: new PiEventMapper(async (event) => void events.push(event), undefined, servers), events };
}

describe("pi MCP tool events", () => {
  it("reads mcp__<server>__<tool> against the servers the extension connected", () => {
    expect(mcpTool("mcp__host__lookup", ["host"])).toEqual({ server: "host", tool: "lookup" });
    expect(mcpTool("mcp__my__db__query", ["my", "my__db"])).toEqual({ server: "my__db", tool: "query" });
    expect(mcpTool("mcp__other__x", ["host"])).toBeUndefined();
    expect(mcpTool("mcp__host__", ["host"])).toBeUndefined();
    expect(mcpTool("bash", ["host"])).toBeUndefined();
  });

  it("a host tool's call is kind mcp with its server and tool; a built-in stays what it is", async () => {
    const { mapper, events } = mapperFor(["host"]);
    await mapper.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "mcp__host__lookup", args: { key: "a" } });
    await mapper.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "mcp__host__lookup", result: { content: [{ type: "text", text: "value" }] }, isError: false });
    await mapper.handle({ type: "tool_execution_start", toolCallId: "c2", toolName: "bash", args: { command: "ls" } });
    expect(events[0]).toMatchObject({ type: "tool.started", kind: "mcp", name: "mcp__host__lookup", title: "host/lookup", mcp: { server: "host", tool: "lookup" }, rawInput: { key: "a" } });
    expect(events[1]).toMatchObject({ type: "tool.completed", status: "completed", output: "value" });
    expect(events[2]).toMatchObject({ type: "tool.started", kind: "command", command: "ls" });
    expect(events[2]).not.toHaveProperty("mcp");
  });

  it("a tool that fails once the run is cancelled is cancelled, not failed", async () => {
    const { mapper, events } = mapperFor(["host"]);
    await mapper.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "mcp__host__wait", args: {} });
    await mapper.handle({ type: "tool_execution_start", toolCallId: "c2", toolName: "mcp__host__wait", args: {} });
    await mapper.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "mcp__host__wait", result: { content: [{ type: "text", text: "boom" }] }, isError: true });
    mapper.cancelling();
    await mapper.handle({ type: "tool_execution_end", toolCallId: "c2", toolName: "mcp__host__wait", result: { content: [{ type: "text", text: "This operation was aborted" }] }, isError: true });
    const ends = events.filter((e) => e.type === "tool.completed");
    expect(ends).toEqual([expect.objectContaining({ callId: "c1", status: "failed" }), expect.objectContaining({ callId: "c2", status: "cancelled" })]);
  });
});
