/**
 * Where the openai driver cuts text it did not write (a failed request's message, a tool title
 * from the model's arguments), it redacts first: a registered key across the cut leaves no part
 * of itself for core's redaction to miss.
 */
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ConversationFile, ConversationMessage } from "../../../src/drivers/openai/conversation.js";
import { boundedConversation, STORED_TOOL_OUTPUT_MAX } from "../../../src/drivers/openai/conversation-store.js";
import { requestFailure } from "../../../src/drivers/openai/failures.js";
import { resultText, type McpServers, type McpTool } from "../../../src/drivers/openai/mcp/servers.js";
import { runToolCalls } from "../../../src/drivers/openai/tool-calls.js";
import { Toolbox } from "../../../src/drivers/openai/toolbox.js";
import type { BuiltinTool } from "../../../src/drivers/openai/tools/types.js";
import type { DriverEvent } from "../../../src/events/types.js";
import { bashTool } from "../../../src/drivers/openai/tools/bash.js";
import { grepTool } from "../../../src/drivers/openai/tools/grep.js";
import { LONG_LINE_MARKER, MAX_GREP_COLUMNS } from "../../../src/drivers/openai/tools/grep-types.js";
import { MAX_LINE_CHARS, readTool } from "../../../src/drivers/openai/tools/read.js";
import { createRedactor } from "../../../src/redact/redact.js";

/** A key of no recognisable shape: only its registration redacts it. */
const KEY = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";

describe("requestFailure", () => {
  it("leaves no part of a registered key that crosses the message's cut", () => {
    const redactor = createRedactor({ secrets: [KEY] });
    const cause = Object.assign(new Error(`${"y".repeat(480)} ${KEY} is not valid`), { status: 400 });
    const failure = requestFailure(cause, "after_delivery", "SCENARIO_API_KEY", (text) => redactor.redactText(text));
    // Core redacts the message again before it is published; a cut key is no longer recognised.
    const published = redactor.redactText(failure.message);
    expect(published).toContain("yyyy");
    expect(published.endsWith("…")).toBe(true);
    expect(published).not.toContain(KEY.slice(0, 8));
  });

  it("leaves no part of a registered key that crosses a tool title's cut", () => {
    const redactor = createRedactor({ secrets: [KEY] });
    const redact = (text: string) => redactor.redactText(text);
    const titles = [bashTool().title({ command: `echo ${"y".repeat(109)}${KEY}` }, redact), grepTool().title({ pattern: `${"y".repeat(69)}${KEY}` }, redact)];
    for (const title of titles) {
      const published = redactor.redactText(title);
      expect(published).toContain("yyyy");
      expect(published).not.toContain(KEY.slice(0, 8));
    }
  });
});

describe("a long tool output cut in its middle", () => {
  const redactor = createRedactor({ secrets: [KEY] });
  /** A key across the kept head's end and another across the kept tail's start. */
  const output = (max: number) => `${"y".repeat(max / 2 - 10)}${KEY}${"m".repeat(max)}${KEY}${"t".repeat(max / 2 - 10)}`;
  const expectNoKeyPart = (text: string) => {
    const published = redactor.redactText(text);
    expect(published).toContain("characters omitted");
    expect(published).not.toContain(KEY.slice(0, 8));
    expect(published).not.toContain(KEY.slice(-8));
  };

  it("is stored without a part of a registered key at either end of the omitted middle", () => {
    const file: ConversationFile = {
      version: 1,
      id: "conv_1",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      turns: [{ runId: "run_1", startedAt: "2026-01-01T00:00:00.000Z", model: "m", messages: [{ role: "tool", callId: "c1", name: "bash", output: output(STORED_TOOL_OUTPUT_MAX), isError: false }] }],
    };
    const stored = boundedConversation(file, redactor).turns[0]!.messages[0]!;
    expect(stored.role).toBe("tool");
    expectNoKeyPart((stored as Extract<ConversationMessage, { role: "tool" }>).output);
  });

  it("reaches tool.completed without a part of a registered key at either end of the omitted middle", async () => {
    const events: DriverEvent[] = [];
    const long = output(64 * 1024);
    const tool: BuiltinTool = { name: "dump", description: "d", parameters: { type: "object" }, kind: "other", title: () => "dump", run: async () => ({ output: long, isError: false }) };
    await runToolCalls([{ id: "c1", name: "dump", arguments: "{}" }], {
      emit: async (event) => {
        events.push(event);
      },
      request: { approve: async () => ({ decision: "allow" }), policy: {}, workspace: "/nonexistent" },
      signal: new AbortController().signal,
      toolbox: new Toolbox([tool], undefined),
      allowed: new Set(),
      redact: (text) => redactor.redactText(text),
    });
    const completed = events.find((event) => event.type === "tool.completed");
    expect(completed).toBeDefined();
    expectNoKeyPart(JSON.stringify(completed));
  });
});

describe("a long line or MCP result cut by the tool itself", () => {
  const redactor = createRedactor({ secrets: [KEY] });
  const redact = (text: string) => redactor.redactText(text);
  /** Every 8-character piece of the key. */
  const pieces = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8));
  /** `before` characters, then the key across the cut at `max` (12 of its characters before it). */
  const crossing = (max: number) => `${"y".repeat(max - 12)}${KEY}${"t".repeat(40)}`;

  async function run(tool: BuiltinTool | undefined, mcp: McpServers | undefined, name: string, args: Record<string, unknown>, workspace: string) {
    const events: DriverEvent[] = [];
    const batch = await runToolCalls([{ id: "c1", name, arguments: JSON.stringify(args) }], {
      emit: async (event) => {
        events.push(event);
      },
      request: { approve: async () => ({ decision: "allow" }), policy: {}, workspace },
      signal: new AbortController().signal,
      toolbox: new Toolbox(tool === undefined ? [] : [tool], mcp),
      allowed: new Set(),
      redact,
    });
    const message = batch.results[0]! as Extract<ConversationMessage, { role: "tool" }>;
    const file: ConversationFile = {
      version: 1,
      id: "conv_1",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      turns: [{ runId: "run_1", startedAt: "2026-01-01T00:00:00.000Z", model: "m", messages: [message] }],
    };
    // Core redacts events again before publishing them; a cut key is no longer recognised.
    const published = redact(JSON.stringify(events));
    const stored = JSON.stringify(boundedConversation(file, redactor));
    expect(events.some((event) => event.type === "tool.completed" && event.output !== undefined)).toBe(true);
    for (const piece of pieces) {
      expect(published).not.toContain(piece);
      expect(stored).not.toContain(piece);
    }
    // The model still sees the workspace's real content, up to the cut.
    expect(message.output).toContain(KEY.slice(0, 12));
    expect(message.output).not.toContain(KEY);
    return published;
  }

  it("read: a key across a long line's cut", async () => {
    const workspace = await realpath(await mkdtemp(join(tmpdir(), "cut-read-")));
    try {
      await writeFile(join(workspace, "a.txt"), `short\n${crossing(MAX_LINE_CHARS)}\nend\n`);
      await run(readTool, undefined, "read", { path: "a.txt" }, workspace);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it("grep (JS search): a key across a long matching line's cut", async () => {
    const workspace = await realpath(await mkdtemp(join(tmpdir(), "cut-grep-")));
    try {
      await writeFile(join(workspace, "a.txt"), `yy short\n${crossing(MAX_GREP_COLUMNS)}\n`);
      await run(grepTool({ ripgrep: false }), undefined, "grep", { pattern: "yy" }, workspace);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it("grep (ripgrep): a key across a line rg cut itself", async () => {
    const workspace = await realpath(await mkdtemp(join(tmpdir(), "cut-rg-")));
    const bin = await realpath(await mkdtemp(join(tmpdir(), "cut-rg-bin-")));
    try {
      const line = crossing(MAX_GREP_COLUMNS);
      await writeFile(join(workspace, "a.txt"), `yy short\n${line}\n`);
      // What rg --max-columns-preview prints for that file.
      await writeFile(join(bin, "out.txt"), `a.txt:1:yy short\na.txt:2:${line.slice(0, MAX_GREP_COLUMNS)}${LONG_LINE_MARKER}\n`);
      await writeFile(join(bin, "rg"), `#!/bin/sh\ncat "${join(bin, "out.txt")}"\n`, { mode: 0o755 });
      const published = await run(grepTool({ ripgrep: join(bin, "rg") }), undefined, "grep", { pattern: "yy" }, workspace);
      // The cut line was found again in its file, not withheld.
      expect(published).toContain(`a.txt:2:${"y".repeat(MAX_GREP_COLUMNS - 12)}`);
      expect(published).not.toContain("withheld");
    } finally {
      await rm(workspace, { recursive: true, force: true });
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("MCP: a key across a long result's cut", async () => {
    const tool: McpTool = { exposedName: "mcp__s__dump", server: "s", tool: "dump", description: "d", parameters: { type: "object" } };
    const text = crossing(100_000);
    const mcp = {
      tools: [tool],
      lookup: (name: string) => (name === tool.exposedName ? tool : undefined),
      call: async (_name: string, _args: Record<string, unknown>, _signal: AbortSignal, redactText?: (text: string) => string) => ({ ...resultText([{ type: "text", text }], undefined, redactText) }),
    } as unknown as McpServers;
    await run(undefined, mcp, tool.exposedName, {}, "/nonexistent");
  });
});
