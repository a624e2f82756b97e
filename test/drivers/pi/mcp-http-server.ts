/**
 * A Streamable HTTP MCP server on 127.0.0.1 for the Pi extension's tests (the official SDK's
 * low-level `Server`, one per MCP session): a bearer token is required, its tools can be
 * replaced between prompts, and it records every call and every cancellation it saw.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface TestTool {
  name: string;
  description?: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> | CallToolResult;
}

export interface TestMcpServer {
  url: string;
  headers: Record<string, string>;
  /** Replaces the tools offered (a later `tools/list` sees the new set). */
  setTools(tools: TestTool[]): void;
  readonly calls: { name: string; args: Record<string, unknown> }[];
  /** Calls whose signal was aborted (the client cancelled them). */
  readonly cancelled: string[];
  /** Requests refused for a missing or wrong token. */
  readonly unauthorized: number;
  close(): Promise<void>;
}

export async function startMcpHttpServer(initial: TestTool[]): Promise<TestMcpServer> {
  const token = randomUUID();
  let tools = initial;
  const calls: TestMcpServer["calls"] = [];
  const cancelled: string[] = [];
  let unauthorized = 0;
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server({ name: "pi-test", version: "1" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = tools.find((t) => t.name === request.params.name);
      const args = request.params.arguments ?? {};
      calls.push({ name: request.params.name, args });
      extra.signal.addEventListener("abort", () => cancelled.push(request.params.name), { once: true });
      if (tool === undefined) return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true };
      return tool.call(args, extra.signal);
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await server.connect(transport);
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      unauthorized++;
      res.writeHead(401).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    const transport = typeof id === "string" ? sessions.get(id) : await newSession();
    if (transport === undefined) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { authorization: `Bearer ${token}` },
    setTools: (next) => void (tools = next),
    calls,
    cancelled,
    get unauthorized() {
      return unauthorized;
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
