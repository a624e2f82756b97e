/** Shared pieces of the A2A bridge tests: a node:http server around `a2aServer`, and SDK messages. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Role, type Message, type Part, type SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import type { Agent } from "../../src/agent/agent.js";
import { a2aServer, type A2AServer, type A2AServerOptions } from "../../src/bridges/a2a/index.js";

export interface Served {
  url: string;
  server: A2AServer;
  http: Server;
  client(): Promise<Client>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 first (the card names the URL), then serves `agent` at `/a2a`. */
export async function serve(agent: Agent, options: Partial<A2AServerOptions> = {}): Promise<Served> {
  let handle: A2AServer["handleNode"] | undefined;
  const http = createServer((req, res) => void handle!(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/a2a`;
  const server = await a2aServer(agent, { url, ...options });
  handle = server.handleNode;
  return {
    url,
    server,
    http,
    client: () => new ClientFactory().createFromUrl(url),
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
export const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });

export function userMessage(parts: Part[], ids: { contextId?: string; taskId?: string } = {}): Message {
  return { messageId: randomUUID(), contextId: ids.contextId ?? "", taskId: ids.taskId ?? "", role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function request(message: Message): SendMessageRequest {
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

/** The text of a message's (or status message's) text parts. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}
