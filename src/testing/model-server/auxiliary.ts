/**
 * Built-in recognition of side requests that real CLIs make around a turn. They are answered
 * automatically and never consume a scripted turn. Each rule is named for the fact observed.
 */
import { lastUserText } from "./capture.js";
import { asArray, asRecord, asString, isRecord } from "./json.js";
import type { JsonRecord } from "./json.js";
import type { ScriptReply } from "./script.js";
import type { ModelDialect, NormalizedRequest } from "./types.js";

/** A side request the server recognised, and what to answer. */
export interface BuiltinAuxiliary {
  reason: string;
  reply: ScriptReply;
}

/** Values that keep Gemini CLI's utility calls on the cheapest, quietest path. */
const PREFERRED: JsonRecord = {
  // routing classifier: the flash model
  model_choice: "flash",
  // next-speaker check: the user speaks next, so the turn ends
  next_speaker: "user",
  // numerical router: low complexity
  complexity_score: 10,
};

/** A value satisfying a JSON Schema or Gemini `Schema` (types may be upper case). */
export function sampleForSchema(schema: unknown, key?: string): unknown {
  const s = asRecord(schema);
  const enumValues = asArray(s.enum);
  const preferred = key === undefined ? undefined : PREFERRED[key];
  if (enumValues.length > 0) return enumValues.includes(preferred) ? preferred : enumValues[0];
  if (s.const !== undefined) return s.const;
  const rawType = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  const type = (asString(rawType) ?? (isRecord(s.properties) ? "object" : "string")).toLowerCase();
  if (preferred !== undefined && typeof preferred === (type === "integer" ? "number" : type)) return preferred;
  switch (type) {
    case "object": {
      const out: JsonRecord = {};
      for (const [name, sub] of Object.entries(asRecord(s.properties))) out[name] = sampleForSchema(sub, name);
      return out;
    }
    case "array":
      return [];
    case "number":
    case "integer":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    default:
      return "Answered automatically by the scripted model server.";
  }
}

/**
 * Recognises a built-in side request:
 *
 * - `gemini-json-utility`: a Gemini **non-streaming** `generateContent` whose
 *   `generationConfig.responseMimeType` is `application/json`. Gemini CLI makes these for model
 *   routing, next-speaker and loop checks (its main turns always stream). Answered with JSON
 *   built from the requested schema (`responseJsonSchema` or `responseSchema`), preferring
 *   `model_choice: "flash"`, `next_speaker: "user"`, `complexity_score: 10`.
 * - `anthropic-quota-probe`: an Anthropic request with `max_tokens: 1` whose only user text is
 *   `quota` (a probe older Claude Code versions send at start-up). Answered with text `ok`.
 */
export function detectBuiltinAuxiliary(
  dialect: ModelDialect,
  request: NormalizedRequest,
  body: unknown,
): BuiltinAuxiliary | undefined {
  const b = asRecord(body);
  if (dialect === "gemini" && !request.stream) {
    const config = asRecord(b.generationConfig ?? b.generation_config);
    const mime = asString(config.responseMimeType ?? config.response_mime_type);
    if (mime === "application/json") {
      const schema = config.responseJsonSchema ?? config.responseSchema ?? config.response_schema;
      const value = schema === undefined ? { reasoning: sampleForSchema({}), ...PREFERRED } : sampleForSchema(schema);
      return { reason: "gemini-json-utility", reply: { text: JSON.stringify(value) } };
    }
  }
  if (dialect === "anthropic" && b.max_tokens === 1 && lastUserText(request).trim().toLowerCase() === "quota") {
    return { reason: "anthropic-quota-probe", reply: { text: "ok" } };
  }
  return undefined;
}

/** A deterministic token estimate for count-tokens endpoints: a quarter of the body's JSON length. */
export function estimateTokens(body: unknown): number {
  const text = body === undefined ? "" : JSON.stringify(body);
  return Math.max(1, Math.ceil(text.length / 4));
}
