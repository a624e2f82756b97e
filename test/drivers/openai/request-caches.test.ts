/**
 * What the OpenAI-compatible driver builds once instead of per run or per request: the toolbox
 * of a run without MCP servers (per driver config and sandbox), the wire's tool list and the
 * context guard's count of tool-schema characters (per tool list), and the signal linking a
 * request to its run. Each cache must still answer what building afresh would.
 */
import { describe, expect, it } from "vitest";

import { resolveOpenAIConfig } from "../../../src/drivers/openai/config.js";
import { estimateTokens } from "../../../src/drivers/openai/context.js";
import { LinkedAbort } from "../../../src/drivers/openai/linked-signal.js";
import type { McpServers } from "../../../src/drivers/openai/mcp/servers.js";
import { toolboxFor } from "../../../src/drivers/openai/toolbox.js";
import { chatParams } from "../../../src/drivers/openai/wire/chat.js";
import { responsesParams } from "../../../src/drivers/openai/wire/responses.js";
import type { ModelRequest, ToolSpec } from "../../../src/drivers/openai/wire/types.js";

const config = (extra: Record<string, unknown> = {}) => resolveOpenAIConfig({ baseURL: "http://127.0.0.1:1/v1", stateDir: "/nonexistent-state", ...extra });
const names = (specs: readonly ToolSpec[]) => specs.map((s) => s.name);

/** Only `tools` of an McpServers is read when a toolbox is built. */
function mcpWith(name: string): McpServers {
  return { tools: [{ exposedName: `mcp__srv__${name}`, server: "srv", tool: name, description: "d", parameters: { type: "object" } }] } as unknown as McpServers;
}

describe("openai toolbox per driver", () => {
  it("serves every run of a driver the same toolbox per sandbox, and builds one for runs with MCP servers", () => {
    const c = config();
    const first = toolboxFor(c, { sandbox: "workspace-write", approval: "on-request" }, undefined);
    expect(toolboxFor(c, { sandbox: "full-access", approval: "never" }, undefined)).toBe(first);
    expect(names(first.specs)).toEqual(["read", "write", "edit", "list", "glob", "grep", "bash", "task"]);

    const readOnly = toolboxFor(c, { sandbox: "read-only" }, undefined);
    expect(readOnly).not.toBe(first);
    expect(names(readOnly.specs)).toEqual(["read", "list", "glob", "grep", "task"]);
    expect(toolboxFor(c, {}, undefined)).toBe(first);

    const withMcp = toolboxFor(c, {}, mcpWith("echo"));
    expect(withMcp).not.toBe(first);
    expect(names(withMcp.specs)).toEqual([...names(first.specs), "mcp__srv__echo"]);
    expect(withMcp.get("mcp__srv__echo")?.kind).toBe("mcp");
    expect(names(toolboxFor(c, {}, undefined).specs)).not.toContain("mcp__srv__echo");
  });

  it("keeps each driver's own tool settings apart", () => {
    const narrowed = toolboxFor(config({ tools: { only: ["read", "grep"] } }), {}, undefined);
    expect(names(narrowed.specs)).toEqual(["read", "grep"]);
    const none = toolboxFor(config({ tools: { builtin: false } }), {}, undefined);
    expect(none.specs).toEqual([]);
    const noTask = toolboxFor(config({ subagents: false }), {}, undefined);
    expect(names(noTask.specs)).not.toContain("task");
  });
});

describe("openai request building per tool list", () => {
  const tools: ToolSpec[] = [
    { name: "a", description: "first tool", parameters: { type: "object", properties: { x: { type: "string" } } } },
    { name: "bb", description: "second", parameters: { type: "object" } },
  ];
  const request = (messages: string[], list: readonly ToolSpec[] = tools): ModelRequest => ({
    model: "m",
    instructions: "be brief",
    messages: messages.map((text) => ({ role: "user", content: [{ type: "text", text }] })),
    tools: list,
  });

  it("gives the same wire tool list for the same tools and a fresh one for other tools (chat and responses)", () => {
    const chat = chatParams(request(["one"])).tools;
    expect(chat).toEqual([
      { type: "function", function: { name: "a", description: "first tool", parameters: tools[0]!.parameters } },
      { type: "function", function: { name: "bb", description: "second", parameters: { type: "object" } } },
    ]);
    expect(chatParams(request(["two"])).tools).toBe(chat);
    const other = [tools[1]!];
    expect(chatParams(request(["one"], other)).tools).toEqual([{ type: "function", function: { name: "bb", description: "second", parameters: { type: "object" } } }]);

    const responses = responsesParams(request(["one"])).tools;
    expect(responses).toEqual([
      { type: "function", name: "a", description: "first tool", parameters: tools[0]!.parameters, strict: false },
      { type: "function", name: "bb", description: "second", parameters: { type: "object" }, strict: false },
    ]);
    expect(responsesParams(request(["two"])).tools).toBe(responses);
    expect(responsesParams(request(["one"], other)).tools).toHaveLength(1);
  });

  it("estimates a request's tokens from its instructions, tool schemas and messages, the schemas counted once per list", () => {
    const schemaChars = tools.reduce((n, t) => n + t.name.length + t.description.length + JSON.stringify(t.parameters).length, 0);
    const expected = (texts: string[]) => Math.ceil(("be brief".length + schemaChars + texts.reduce((n, t) => n + t.length + 8, 0)) / 4);
    expect(estimateTokens(request(["hello"]))).toBe(expected(["hello"]));
    expect(estimateTokens(request(["hello", "x".repeat(400)]))).toBe(expected(["hello", "x".repeat(400)]));
    expect(estimateTokens(request(["hello"], []))).toBe(Math.ceil(("be brief".length + 5 + 8) / 4));
  });
});

describe("LinkedAbort", () => {
  it("aborts with its parent's reason, at once when the parent already was", () => {
    const parent = new AbortController();
    const link = new LinkedAbort(parent.signal);
    expect(link.signal.aborted).toBe(false);
    const reason = new Error("stop");
    parent.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe(reason);
    expect(new LinkedAbort(parent.signal).signal.reason).toBe(reason);
  });

  it("aborts alone without touching its parent, and is no longer aborted by the parent once unlinked", () => {
    const parent = new AbortController();
    const own = new LinkedAbort(parent.signal);
    own.controller.abort();
    expect(own.signal.aborted).toBe(true);
    expect(parent.signal.aborted).toBe(false);

    const done = new LinkedAbort(parent.signal);
    done.unlink();
    parent.abort(new Error("later"));
    expect(done.signal.aborted).toBe(false);
  });
});
