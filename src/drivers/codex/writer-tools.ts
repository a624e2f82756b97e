/**
 * Whether a thread's warm writer still offers every host tool a run binds. Codex lists a thread's
 * MCP tools when it loads the thread and does not list them again (a `tools/list_changed` from the
 * loopback server is not acted on), so a later turn that adds run-scoped services under new names
 * would call tools the loaded thread never offered. Such a run does not use the writer: it starts
 * a fresh process whose `thread/resume` lists the tools anew.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import type { HostToolsEndpoint } from "../../driver/types.js";
import { entries, list, open, readFrame } from "../../driver/lens.js";
import type { CodexConnection } from "./connection.js";
import type { ListMcpServerStatusResponse } from "./protocol/v2/ListMcpServerStatusResponse.js";

/** The tools the loopback server lists on `endpoint` now (for the run bound to it). */
async function endpointToolNames(endpoint: HostToolsEndpoint, signal: AbortSignal): Promise<string[]> {
  const client = new Client({ name: "agent-adaptor-codex", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.http.url), { requestInit: { headers: endpoint.http.headers } });
  await client.connect(transport, { signal });
  try {
    const { tools } = await client.listTools(undefined, { signal });
    return tools.map((tool) => tool.name);
  } finally {
    // Ends the session on the loopback server too, not just this side's connection.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

/** The host tools the loaded thread `threadId` offers, as Codex states them. */
async function threadToolNames(connection: CodexConnection, threadId: string, serverName: string, signal: AbortSignal): Promise<string[]> {
  const answer = await connection.request("mcpServerStatus/list", { threadId, serverName, detail: "toolsAndAuthOnly" }, signal);
  const server = list(readFrame<ListMcpServerStatusResponse>(answer)?.data)
    .map(open)
    .find((entry) => entry?.name === serverName);
  return entries(open(server?.tools)).map(([name]) => name);
}

/**
 * True when the writer's loaded thread offers every tool the endpoint lists for the bound run.
 * Anything that cannot be told (a failed listing) counts as not offered: a fresh process is
 * always correct, only slower.
 */
export async function writerOffersTools(connection: CodexConnection, threadId: string, endpoint: HostToolsEndpoint, signal: AbortSignal): Promise<boolean> {
  try {
    const [wanted, offered] = await Promise.all([endpointToolNames(endpoint, signal), threadToolNames(connection, threadId, endpoint.http.name, signal)]);
    const known = new Set(offered);
    return wanted.every((name) => known.has(name));
  } catch {
    signal.throwIfAborted();
    return false;
  }
}
