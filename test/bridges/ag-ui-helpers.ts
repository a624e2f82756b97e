/** Shared pieces of the AG-UI bridge tests: a real node:http server around the endpoint, raw SSE reading, schema checks. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { EventSchemas } from "@ag-ui/core/schemas";
import { expect } from "vitest";
import type { AgUiHandler } from "../../src/bridges/ag-ui/index.js";
import type { FakeRunScript } from "../../src/testing/index.js";

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** The endpoint on a real node:http server on 127.0.0.1. */
export async function serveHandler(handler: AgUiHandler): Promise<Served> {
  const server: Server = createServer(getRequestListener((request) => handler(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every event valid for `@ag-ui/core`'s own schemas (the union, discriminated on `type`). */
export function expectValidAgUi(events: readonly unknown[]): void {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${JSON.stringify(event)}: ${parsed.success ? "" : parsed.error.message}`).toBe(true);
  }
}

/** POST an input and read the raw SSE events (for schema checks of exactly what went over the wire). */
export async function postRaw(url: string, input: unknown): Promise<{ status: number; contentType: string | null; events: Record<string, unknown>[] }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(input) });
  const text = await response.text();
  const events = response.headers.get("content-type")?.startsWith("text/event-stream")
    ? text
        .split("\n\n")
        .filter((frame) => frame.startsWith("data: "))
        .map((frame) => JSON.parse(frame.slice("data: ".length)) as Record<string, unknown>)
    : [];
  return { status: response.status, contentType: response.headers.get("content-type"), events };
}

export function userInput(threadId: string, runId: string, text: string): Record<string, unknown> {
  return { threadId, runId, messages: [{ id: `u-${runId}`, role: "user", content: text }], tools: [], context: [], state: {} };
}

/** Text, reasoning, a command with output, a plan and usage. */
export const RICH_SCRIPT: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "reasoning.delta", itemId: "r1", text: "Let me " } },
    { emit: { type: "reasoning.delta", itemId: "r1", text: "look." } },
    { emit: { type: "reasoning.completed", itemId: "r1", text: "Let me look." } },
    { emit: { type: "tool.started", callId: "c1", kind: "command", name: "shell", title: "ls", command: "ls", rawInput: { command: ["ls"] } } },
    { emit: { type: "tool.updated", callId: "c1", output: "a.txt\n" } },
    { emit: { type: "tool.completed", callId: "c1", status: "completed", exitCode: 0 } },
    { emit: { type: "plan.updated", entries: [{ text: "list files", status: "completed" }] } },
    { emit: { type: "message.delta", itemId: "m1", text: "Hel" } },
    { emit: { type: "message.delta", itemId: "m1", text: "lo" } },
    { emit: { type: "message.completed", itemId: "m1", text: "Hello" } },
    { emit: { type: "usage.observed", usage: { input_tokens: 12, output_tokens: 5 } } },
  ],
  text: "Hello",
  usage: { input_tokens: 12, output_tokens: 5 },
};

/** A command that needs an approval, then the answer. */
export const APPROVAL_SCRIPT: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "tool.started", callId: "c2", kind: "command", name: "shell", title: "rm build", command: "rm -rf build" } },
    {
      approve: {
        requestId: "approval-1",
        kind: "command",
        callId: "c2",
        summary: "Run `rm -rf build`",
        options: [
          { id: "accept", label: "Allow once", kind: "allow_once" },
          { id: "decline", label: "Deny", kind: "deny" },
        ],
      },
    },
    { emit: { type: "tool.completed", callId: "c2", status: "completed", exitCode: 0 } },
    { emit: { type: "message.completed", itemId: "m2", text: "Removed." } },
  ],
  text: "Removed.",
};
