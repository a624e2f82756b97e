/**
 * Request capture helpers: header redaction, data-URL inspection and the text views of a
 * captured conversation that scripts match on.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { CapturedMessage, CapturedPart, CapturedSource } from "./types.js";

/** Placeholder written over every credential-bearing header value. */
export const REDACTED = "[REDACTED]";

const SECRET_HEADER = /authorization|api[-_]?key|cookie|token|secret|password|signature/i;

/**
 * Lower-cases header names, joins repeated values with `", "` and replaces credentials
 * (`authorization`, `x-api-key`, `x-goog-api-key`, `cookie`, anything naming a key, token,
 * secret or password) with {@link REDACTED}.
 */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = SECRET_HEADER.test(key) ? REDACTED : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Decoded size and SHA-256 (hex) of a base64 payload, so tests can prove which bytes arrived. */
export function describeBase64(data: string): { byteLength: number; sha256: string } {
  const bytes = Buffer.from(data, "base64");
  return { byteLength: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** Media type, decoded size and SHA-256 of a `data:` URL; `undefined` for any other URL. */
export function parseDataUrl(url: string): { mediaType?: string; byteLength: number; sha256?: string } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),/.exec(url);
  if (!match) return undefined;
  const payload = url.slice(match[0].length);
  const isBase64 = (match[2] ?? "").split(";").includes("base64");
  let described: { byteLength: number; sha256?: string };
  try {
    described = isBase64 ? describeBase64(payload) : { byteLength: Buffer.byteLength(decodeURIComponent(payload)) };
  } catch {
    described = { byteLength: Buffer.byteLength(payload) };
  }
  return match[1] ? { mediaType: match[1], ...described } : described;
}

/** Describes where a binary part came from, given a URL that may be a `data:` URL. */
export function describeUrl(url: string): {
  source: CapturedSource;
  mediaType?: string;
  url?: string;
  byteLength?: number;
  sha256?: string;
} {
  const data = parseDataUrl(url);
  if (data) return { source: "base64", ...data };
  return { source: "url", url };
}

/** The kind of a binary part, from its media type. */
export function partKindFor(mediaType: string | undefined): "image" | "audio" | "file" {
  if (mediaType?.startsWith("image/")) return "image";
  if (mediaType?.startsWith("audio/")) return "audio";
  return "file";
}

const REMINDER = /^\s*<system-reminder>[\s\S]*<\/system-reminder>\s*$/;

/** Text parts of a message, without Claude Code's `<system-reminder>` blocks. */
function promptTexts(parts: CapturedPart[]): string[] {
  const texts: string[] = [];
  for (const part of parts) if (part.type === "text" && !REMINDER.test(part.text)) texts.push(part.text);
  return texts;
}

/**
 * The text of the most recent `user` message that carries text, joined with `"\n"`.
 * Tool results and Claude Code's `<system-reminder>` blocks do not count, so after a tool
 * round trip this is still the prompt that started it. Trailing `system` messages (Claude
 * Code appends one) are skipped. `""` when there is none.
 */
export function lastUserText(request: { messages: readonly CapturedMessage[] }): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message?.role !== "user") continue;
    const texts = promptTexts(message.parts);
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

/** All text of the `system` messages, joined with `"\n"`. */
export function systemText(request: { messages: readonly CapturedMessage[] }): string {
  const texts: string[] = [];
  for (const message of request.messages) {
    if (message.role !== "system") continue;
    for (const part of message.parts) if (part.type === "text") texts.push(part.text);
  }
  return texts.join("\n");
}

/** Call ids of the tool results that follow the last assistant message. */
export function pendingToolResults(request: { messages: readonly CapturedMessage[] }): string[] {
  let start = 0;
  request.messages.forEach((message, i) => {
    if (message.role === "assistant") start = i + 1;
  });
  const ids: string[] = [];
  for (const message of request.messages.slice(start)) {
    for (const part of message.parts) if (part.type === "tool_result") ids.push(part.callId);
  }
  return ids;
}

/**
 * Whether the last message (trailing `system` messages skipped) carries a tool result: after an
 * interrupted tool call the result stays behind the last assistant message, but a new prompt follows it.
 */
export function endsWithToolResult(request: { messages: readonly CapturedMessage[] }): boolean {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message === undefined || message.role === "system") continue;
    return message.parts.some((part) => part.type === "tool_result");
  }
  return false;
}
