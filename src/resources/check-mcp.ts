/**
 * What `createAgent` checks of its MCP servers beyond their shape: a name every provider accepts
 * as a server key (Codex takes ASCII letters, digits, `_` and `-`; Claude Code names tools
 * `mcp__<server>__<tool>` within 64 characters), not the host-tools server's reserved name, and
 * environment and header entries a child process and an HTTP request can carry. Messages name
 * the server and the entry, never a value: every value may be a secret.
 */
import { ConfigError } from "../errors/index.js";
import type { McpServerConfig } from "../driver/vocabulary.js";
import { HOST_TOOLS_SERVER_NAME } from "./host-tools/server-name.js";

/** An MCP server name: ASCII letters, digits, `_` and `-`, at most 64 characters. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Characters no header value may hold (they would end or split the header). */
const HEADER_VALUE_BREAK = /[\r\n\0]/;

/** Throws `ConfigError` naming the first server (and entry) that no provider could be given. */
export function checkMcpServers(servers: readonly McpServerConfig[]): void {
  for (const server of servers) {
    const where = `mcp server ${JSON.stringify(server.name.slice(0, 80))}`;
    if (!MCP_SERVER_NAME_PATTERN.test(server.name)) {
      throw new ConfigError(`${where}: the name must be 1-64 ASCII letters, digits, "_" or "-"`);
    }
    if (server.name === HOST_TOOLS_SERVER_NAME) {
      throw new ConfigError(`${where}: the name is reserved for the agent's host tools; choose another`);
    }
    if ("command" in server) checkStdio(server, where);
    else checkHttp(server, where);
  }
}

function checkStdio(server: Extract<McpServerConfig, { command: string }>, where: string): void {
  if (server.command.trim() === "" || server.command.includes("\0")) throw new ConfigError(`${where}: command must be a non-empty path or name`);
  server.args?.forEach((arg, index) => {
    if (arg.includes("\0")) throw new ConfigError(`${where}: args[${index}] holds a NUL character`);
  });
  Object.entries(server.env ?? {}).forEach(([name, value], index) => {
    // A malformed name is not echoed: it may be a value pasted into the wrong place.
    if (!ENV_NAME.test(name)) throw new ConfigError(`${where}: env entry ${index + 1} has no environment variable name`);
    if (value.includes("\0")) throw new ConfigError(`${where}: the value of env ${name} holds a NUL character`);
  });
}

function checkHttp(server: Extract<McpServerConfig, { url: string }>, where: string): void {
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    // Node's error would carry the URL, which may hold a token.
    throw new ConfigError(`${where}: url must be an http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${where}: url must be an http(s) URL`);
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(`${where}: put credentials in headers, not in the url`);
  }
  Object.entries(server.headers ?? {}).forEach(([name, value], index) => {
    if (!HEADER_NAME.test(name)) throw new ConfigError(`${where}: header entry ${index + 1} has no HTTP header name`);
    if (HEADER_VALUE_BREAK.test(value)) throw new ConfigError(`${where}: the value of header ${name} holds a line break or NUL`);
  });
}
