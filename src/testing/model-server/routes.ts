/**
 * Which endpoint a request targets. Paths are matched by their ending, so `/v1/responses`,
 * `/responses` and `/openai/v1/responses` are the same endpoint: clients differ in whether
 * their base URL includes `/v1` (CodeBuddy posts to `/chat/completions`, Codex to
 * `{base_url}/responses`, Gemini to `/v1beta/models/…`).
 */
import type { ModelDialect } from "./types.js";

export type Route =
  | { kind: "generate"; dialect: ModelDialect; model?: string; stream?: boolean }
  | { kind: "count_tokens"; dialect: "anthropic" | "gemini"; model?: string }
  | { kind: "models"; id?: string }
  | { kind: "probe" }
  | { kind: "control"; what: "requests" | "unused-turns" }
  | { kind: "unknown" };

/** Prefix of the server's own inspection endpoints; these are not recorded. */
export const CONTROL_PREFIX = "/__model-server/";

const GEMINI_ACTION = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

export function route(method: string, rawPath: string): Route {
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, "") : rawPath;
  if ((method === "GET" || method === "HEAD") && (path === "/" || path === "")) return { kind: "probe" };
  if (method === "GET" && path === `${CONTROL_PREFIX}requests`) return { kind: "control", what: "requests" };
  if (method === "GET" && path === `${CONTROL_PREFIX}unused-turns`) return { kind: "control", what: "unused-turns" };
  if (method === "GET") {
    if (/(^|\/)models$/.test(path)) return { kind: "models" };
    const one = /\/models\/([^:]+)$/.exec(path);
    if (one?.[1]) return { kind: "models", id: decodeURIComponent(one[1]) };
    return { kind: "unknown" };
  }
  if (method !== "POST") return { kind: "unknown" };
  if (path.endsWith("/responses")) return { kind: "generate", dialect: "responses" };
  if (path.endsWith("/chat/completions")) return { kind: "generate", dialect: "chat" };
  if (path.endsWith("/messages/count_tokens")) return { kind: "count_tokens", dialect: "anthropic" };
  if (path.endsWith("/messages")) return { kind: "generate", dialect: "anthropic" };
  const gemini = GEMINI_ACTION.exec(decodeURIComponent(path));
  if (gemini?.[1] && gemini[2]) {
    const model = gemini[1];
    if (gemini[2] === "countTokens") return { kind: "count_tokens", dialect: "gemini", model };
    return { kind: "generate", dialect: "gemini", model, stream: gemini[2] === "streamGenerateContent" };
  }
  return { kind: "unknown" };
}
