/**
 * Model listing (`GET /v1/models`, `GET /v1/models/{id}`, Gemini `GET /v1beta/models`), answered
 * in the dialect the client speaks: Gemini when the path is `/v1beta`/`/v1alpha` or a Google
 * key is sent (`x-goog-api-key` header or `key` query), Anthropic when `anthropic-version` or
 * `x-api-key` is sent, OpenAI otherwise.
 */
import type { JsonRecord } from "../json.js";

export type ListingDialect = "openai" | "anthropic" | "gemini";

export function listingDialect(
  path: string,
  headers: Record<string, string | string[] | undefined>,
  query: Record<string, string>,
): ListingDialect {
  if (/^\/v1(beta|alpha)\d*\//.test(path) || headers["x-goog-api-key"] !== undefined || query.key !== undefined) {
    return "gemini";
  }
  if (headers["anthropic-version"] !== undefined || headers["x-api-key"] !== undefined) return "anthropic";
  return "openai";
}

const CREATED = "2025-01-01T00:00:00Z";
const CREATED_SECONDS = Date.parse(CREATED) / 1000;

function entry(dialect: ListingDialect, id: string): JsonRecord {
  switch (dialect) {
    case "gemini":
      return {
        name: `models/${id}`,
        version: "001",
        displayName: id,
        description: "Scripted model",
        inputTokenLimit: 1_048_576,
        outputTokenLimit: 65_536,
        supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
      };
    case "anthropic":
      return { type: "model", id, display_name: id, created_at: CREATED };
    default:
      return { id, object: "model", created: CREATED_SECONDS, owned_by: "scripted-model-server" };
  }
}

/** Extra fields of OpenAI-dialect entries, by model id (the script's `modelInfo`). */
export type ModelInfoFields = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

function entryWith(dialect: ListingDialect, id: string, info: ModelInfoFields | undefined): JsonRecord {
  const base = entry(dialect, id);
  const extra = dialect === "openai" ? info?.[id] : undefined;
  return extra === undefined ? base : ({ ...extra, ...base } as JsonRecord);
}

/** The listing body. */
export function modelList(dialect: ListingDialect, ids: readonly string[], info?: ModelInfoFields): unknown {
  const entries = ids.map((id) => entryWith(dialect, id, info));
  switch (dialect) {
    case "gemini":
      return { models: entries };
    case "anthropic":
      return { data: entries, has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null };
    default:
      return { object: "list", data: entries };
  }
}

/** One model; `undefined` when the id is not listed. */
export function modelEntry(dialect: ListingDialect, ids: readonly string[], id: string, info?: ModelInfoFields): unknown {
  const bare = id.replace(/^models\//, "");
  return ids.includes(bare) ? entryWith(dialect, bare, info) : undefined;
}
