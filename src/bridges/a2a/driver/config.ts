/**
 * The `a2a()` driver's config: the remote agent's URL and how to authenticate to it. Validated at
 * construction (`ConfigError` naming the field, never a value).
 */
import { ConfigError } from "../../../errors/index.js";

/** Credentials sent with every request to the remote agent (card included). */
export interface A2AAuth {
  /** A bearer token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The environment variable holding the bearer token, read at each call. */
  tokenEnv?: string;
  /** Other headers (an API key header, ...). Their values are treated as secrets. */
  headers?: Record<string, string>;
}

export interface A2AConfig {
  /** The remote agent's base URL: its card is read at `<url>/.well-known/agent-card.json`. */
  url: string;
  /** The card's path relative to `url`, when it is not the well-known one. */
  cardPath?: string;
  auth?: A2AAuth;
}

const KEYS = new Set(["url", "cardPath", "auth"]);
const AUTH_KEYS = new Set(["token", "tokenEnv", "headers"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function fail(message: string): never {
  throw new ConfigError(`a2a: ${message}`);
}

function checkAuth(auth: unknown): void {
  if (typeof auth !== "object" || auth === null || Array.isArray(auth)) fail("auth: expected an object");
  for (const key of Object.keys(auth)) if (!AUTH_KEYS.has(key)) fail(`auth.${key}: unknown key`);
  const { token, tokenEnv, headers } = auth as A2AAuth;
  if (token !== undefined && (typeof token !== "string" || token === "" || /[\r\n]/.test(token))) fail("auth.token: expected a non-empty string without line breaks");
  if (tokenEnv !== undefined && (typeof tokenEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))) fail("auth.tokenEnv: expected an environment variable name");
  if (token !== undefined && tokenEnv !== undefined) fail("auth: give token or tokenEnv, not both");
  if (headers === undefined) return;
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) fail("auth.headers: expected an object");
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) fail(`auth.headers: "${name}" is not a header name`);
    if (typeof value !== "string" || /[\r\n]/.test(value)) fail(`auth.headers.${name}: expected a string without line breaks`);
  }
}

/** Checks `config` and returns a copy the driver keeps. */
export function resolveA2AConfig(config: A2AConfig): A2AConfig {
  if (typeof config !== "object" || config === null) fail("expected a config object");
  for (const key of Object.keys(config)) if (!KEYS.has(key)) fail(`${key}: unknown key`);
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    fail("url: expected an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("url: expected an http(s) URL");
  if (url.username !== "" || url.password !== "") fail("url: put credentials in auth, not in the URL");
  if (config.cardPath !== undefined && typeof config.cardPath !== "string") fail("cardPath: expected a string");
  if (config.auth !== undefined) checkAuth(config.auth);
  return structuredClone(config);
}

/** The bearer token now (from `token`, or the variable `tokenEnv` names). */
export function bearerToken(auth: A2AAuth | undefined): string | undefined {
  if (auth?.token !== undefined) return auth.token;
  if (auth?.tokenEnv !== undefined) {
    const value = process.env[auth.tokenEnv];
    return value === undefined || value === "" ? undefined : value;
  }
  return undefined;
}

/** The headers every request carries. */
export function authHeaders(auth: A2AAuth | undefined): Record<string, string> {
  const token = bearerToken(auth);
  return { ...auth?.headers, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) };
}

/** Values to redact: the token and every header value. */
export function configSecrets(config: A2AConfig): string[] {
  const token = bearerToken(config.auth);
  return [...(token !== undefined ? [token] : []), ...Object.values(config.auth?.headers ?? {})].filter((v) => v.length >= 4);
}

export const A2A_CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["url"],
  properties: {
    url: { type: "string", description: "The remote agent's base URL" },
    cardPath: { type: "string" },
    auth: {
      type: "object",
      additionalProperties: false,
      properties: { token: { type: "string" }, tokenEnv: { type: "string" }, headers: { type: "object", additionalProperties: { type: "string" } } },
    },
  },
} as const;
