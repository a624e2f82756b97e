/**
 * Shapes recorded by the scripted model server. Every request it receives is captured as a
 * {@link CapturedRequest}, with the wire-specific message formats of each dialect normalized
 * into {@link CapturedMessage}s so a test can assert what reached the model without knowing
 * the provider's wire format.
 */

/** The model API dialects the server speaks. */
export type ModelDialect = "responses" | "chat" | "anthropic" | "gemini";

/** Dialect of a captured request: a model dialect, a model listing, or anything else. */
export type CapturedDialect = ModelDialect | "models" | "other";

/** Where the bytes of an image, file or audio part came from. */
export type CapturedSource = "base64" | "url" | "file" | "text";

/** One normalized content part of a message. Binary payloads are never copied: only their size. */
export type CapturedPart =
  | { type: "text"; text: string }
  | { type: "image"; mediaType?: string; source: CapturedSource; url?: string; byteLength?: number; sha256?: string }
  | {
      type: "file";
      mediaType?: string;
      filename?: string;
      source: CapturedSource;
      url?: string;
      byteLength?: number;
      sha256?: string;
    }
  | { type: "audio"; mediaType?: string; source: CapturedSource; byteLength?: number; sha256?: string }
  | { type: "tool_call"; name: string; callId: string; arguments?: unknown }
  | { type: "tool_result"; callId: string; text?: string; isError?: boolean; parts?: CapturedPart[] }
  | { type: "reasoning"; text?: string }
  /** A part the normalizer does not know; `kind` is its wire type. Nothing is dropped silently. */
  | { type: "other"; kind: string };

/**
 * One normalized message. `system` covers system/developer prompts (including top-level
 * `instructions`, `system` and `systemInstruction` fields); `tool` covers tool-result messages
 * of dialects that give them their own role (Chat `tool`, Responses `function_call_output`).
 * Anthropic and Gemini carry tool results inside `user` messages, and so does this record.
 */
export interface CapturedMessage {
  role: "system" | "user" | "assistant" | "tool" | "other";
  parts: CapturedPart[];
}

/** A fault applied to the answer (copied from the script). */
export interface AppliedFault {
  status?: number;
  cutAfterEvents?: number;
  delayMs?: number;
  dripMs?: number;
}

/** Everything the server recorded about one request. */
export interface CapturedRequest {
  /** 0-based arrival order; equals the position in `requests` unless `keepRequests` dropped older ones. */
  index: number;
  method: string;
  /** URL path without the query string, e.g. `/v1/messages`. */
  path: string;
  query: Record<string, string>;
  dialect: CapturedDialect;
  model?: string;
  stream: boolean;
  /** The parsed JSON body (`undefined` when empty; the raw text when it was not JSON). */
  body: unknown;
  messages: CapturedMessage[];
  /** Names of the tools offered to the model (built-in tools by their wire type). */
  tools: string[];
  /** Lower-cased request headers; credentials are replaced by `"[REDACTED]"`. */
  headers: Record<string, string>;
  /** 1-based position among model-turn requests (not set for auxiliary requests). */
  nth?: number;
  /** 0-based index of the script turn that answered it. */
  matchedTurn?: number;
  /** Set when the request was answered automatically without consuming a turn. */
  auxiliary?: boolean;
  /** Which auxiliary rule answered it, e.g. `"gemini-json-utility"` or `"auxiliary.rules[0]"`. */
  auxiliaryReason?: string;
  /** HTTP status answered; `0` when the connection was dropped before a status line. */
  status: number;
  /** The fault the script applied to this answer, if any. */
  fault?: AppliedFault;
  /** Why the server refused the request (unmatched step, exhausted script, bad body, ...). */
  error?: string;
}

/** What a dialect normalizer extracts from a request body. */
export interface NormalizedRequest {
  model?: string;
  stream: boolean;
  messages: CapturedMessage[];
  tools: string[];
}
