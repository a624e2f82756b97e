/**
 * The stream-json wire, as far as the drivers read and write it. NDJSON both ways: the host
 * writes `user`, `control_request` and `control_response` lines; the CLI writes `system`,
 * `assistant`, `user`, `stream_event`, `result`, `control_request`, `control_response` and
 * `control_cancel_request` lines (plus dialect extras, which are ignored).
 *
 * The shapes are declared here rather than imported: the published package must not depend on
 * a provider SDK for its types. A type test checks the Claude shapes against the Agent SDK's
 * exported types, so drift is caught at type-check time.
 */

import type { Json } from "../../driver/json.js";

export type { Json };

/** Image media types the Messages API takes as base64 image blocks. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** A content block of a user message the host sends. */
export type UserContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: ImageMediaType; data: string } }
  | { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string }; title?: string };

/** A prompt written to the CLI. */
export interface UserLine {
  type: "user";
  message: { role: "user"; content: string | UserContentBlock[] };
  parent_tool_use_id: null;
  session_id: string;
}

/** A request either side sends; the other answers with one `control_response` echoing `request_id`. */
export interface ControlRequestLine {
  type: "control_request";
  request_id: string;
  request: { subtype: string } & Json;
}

export type ControlResponseBody =
  | { subtype: "success"; request_id: string; response?: Json }
  | { subtype: "error"; request_id: string; error: string };

export interface ControlResponseLine {
  type: "control_response";
  response: ControlResponseBody;
}

/** The CLI withdrew one of its own requests (e.g. a permission prompt after an interrupt). */
export interface ControlCancelLine {
  type: "control_cancel_request";
  request_id: string;
}

/** `control_request` with `subtype: "can_use_tool"`, as both dialects send it. */
export interface CanUseToolRequest {
  subtype: "can_use_tool";
  tool_name: string;
  input: Json;
  tool_use_id?: string;
  description?: string;
  title?: string;
  display_name?: string;
  blocked_path?: string;
  decision_reason?: string;
  permission_suggestions?: unknown[];
}

/** A content block of an assistant message (Messages API shape). */
export type AssistantBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: string; [key: string]: unknown };

/** Per-turn usage in the Messages API shape (`result.usage`, `assistant.message.usage`). */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** One entry of Claude's cumulative per-model `modelUsage`. */
export interface WireModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  thinkingTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
  costUSD?: number;
  contextWindow?: number;
  maxOutputTokens?: number;
}

/** The one `result` line that ends a turn. `is_error`, not `subtype`, is the real error signal. */
export interface ResultLine {
  type: "result";
  subtype: string;
  is_error?: boolean;
  result?: string;
  errors?: string[];
  session_id?: string;
  num_turns?: number;
  total_cost_usd?: number;
  usage?: WireUsage;
  modelUsage?: Record<string, WireModelUsage>;
  permission_denials?: { tool_name: string; tool_use_id: string }[];
  terminal_reason?: string;
  api_error_status?: number | null;
  stop_reason?: string | null;
  /** The value the model gave for `--json-schema` (Claude Code), already checked by the CLI against the schema. */
  structured_output?: unknown;
}

/** The shared lenient accessors, re-exported for the stream-json modules that read the wire. */
export { isObject, str } from "../../driver/json.js";

/** A finite non-negative number, else undefined (never a guessed 0). */
export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
