/**
 * A handler's return value as an MCP tool result: a string as text, nothing as empty text,
 * anything else as JSON text (a plain object also as `structuredContent`).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export function toolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [{ type: "text", text: value === null ? "null" : "" }] };
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  const json = jsonText(value);
  const result: CallToolResult = { content: [{ type: "text", text: json ?? String(value) }] };
  if (json !== undefined && isPlainObject(value)) result.structuredContent = JSON.parse(json) as Record<string, unknown>;
  return result;
}

/** A tool error the model reads (`isError: true`), never a protocol error. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** The value as JSON; undefined for what JSON cannot hold (a cycle, a BigInt, a function), shown as a string instead. */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
