/**
 * The secrets an agent's MCP servers carry. Every `env` value and every `headers` value is one,
 * whatever its name: `DB_URL` may hold a password as well as `API_TOKEN` does. Values shorter than
 * the redactor's floor are left out (a short env value such as `1` or `true` protects nothing and
 * would shred every message it touches).
 */
import type { McpServerConfig } from "../driver/vocabulary.js";
import { isSecretEnvName, MIN_ENV_SECRET_LENGTH, MIN_SECRET_LENGTH } from "../redact/redact.js";

/** The values to register with the agent's redactor, longest first. */
export function mcpSecretValues(servers: readonly McpServerConfig[]): string[] {
  const values = new Set<string>();
  for (const server of servers) {
    if ("command" in server) {
      for (const [name, value] of Object.entries(server.env ?? {})) {
        // A credential-named variable is a secret from the redactor's floor, any other from the env floor.
        if (value.length >= (isSecretEnvName(name) ? MIN_SECRET_LENGTH : MIN_ENV_SECRET_LENGTH)) values.add(value);
      }
    } else {
      for (const value of Object.values(server.headers ?? {})) {
        if (value.length >= MIN_SECRET_LENGTH) values.add(value);
        // `Bearer <token>`: the token alone is a secret too, wherever it is quoted without its scheme.
        const credential = /^\s*\S+\s+(\S{4,})\s*$/.exec(value)?.[1];
        if (credential !== undefined) values.add(credential);
      }
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}
