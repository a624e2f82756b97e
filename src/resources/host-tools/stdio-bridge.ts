/**
 * The stdio bridge for providers that launch MCP servers only as commands: a small Node program
 * relaying stdio JSON-RPC to one endpoint over Streamable HTTP with the SDK's own transports. The
 * endpoint's address and token travel in its environment, never on its command line.
 *
 * The program is written into a private directory when the loopback server starts (and removed
 * when it closes). It loads the SDK by absolute path, so it runs the same from any install layout.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The environment variables the bridge reads its endpoint from. */
export const BRIDGE_URL_ENV = "AGENT_ADAPTOR_HOST_TOOLS_URL";
export const BRIDGE_TOKEN_ENV = "AGENT_ADAPTOR_HOST_TOOLS_TOKEN";

/** The bridge program: CommonJS, so `node <file>` runs it whatever the directory's package type. */
export function bridgeSource(): string {
  const require = createRequire(import.meta.url);
  const stdio = require.resolve("@modelcontextprotocol/sdk/server/stdio.js");
  const http = require.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return `"use strict";
const { StdioServerTransport } = require(${JSON.stringify(stdio)});
const { StreamableHTTPClientTransport } = require(${JSON.stringify(http)});
const url = process.env[${JSON.stringify(BRIDGE_URL_ENV)}];
const token = process.env[${JSON.stringify(BRIDGE_TOKEN_ENV)}];
if (!url || !token) {
  process.stderr.write("host-tools bridge: the endpoint address is missing from the environment\\n");
  process.exit(2);
}
// Children of the provider need not see the token.
delete process.env[${JSON.stringify(BRIDGE_TOKEN_ENV)}];
const remote = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer " + token } } });
const local = new StdioServerTransport();
let ending = false;
const end = (code) => {
  if (ending) return;
  ending = true;
  Promise.allSettled([remote.close(), local.close()]).then(() => process.exit(code));
};
const fail = (error) => {
  process.stderr.write("host-tools bridge: " + (error && error.message ? error.message : String(error)) + "\\n");
  end(1);
};
local.onmessage = (message) => {
  remote.send(message).catch((error) => {
    // A request that could not be relayed still gets its answer, so the provider does not hang.
    if (message.id !== undefined && message.method !== undefined) {
      local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: "host-tools endpoint unreachable: " + (error && error.message ? error.message : String(error)) } }).catch(() => undefined);
    }
  });
};
remote.onmessage = (message) => void local.send(message).catch(fail);
remote.onerror = () => undefined;
local.onerror = fail;
local.onclose = () => end(0);
process.stdin.on("end", () => end(0));
remote.start().then(() => local.start()).catch(fail);
`;
}

/** Writes the bridge program into a new private directory; `remove()` deletes it. */
export async function materializeBridge(): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "agent-adaptor-host-tools-"));
  const path = join(dir, "stdio-bridge.cjs");
  await writeFile(path, bridgeSource(), { mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
