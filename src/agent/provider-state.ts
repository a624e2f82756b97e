/**
 * The thread-scoped provider state a run (or a rewind) gets: the driver's opaque document in the
 * thread store, read and written as the holder of the thread's lease, with every registered
 * secret removed and its size bounded before anything is written.
 */
import type { ProviderStateHandle } from "../driver/types.js";
import { AdaptorError, ConfigError, StoreError } from "../errors/index.js";
import { redactSecretsOnly, type Redactor } from "../redact/redact.js";
import { PROVIDER_STATE_MAX_BYTES, type ThreadStore } from "../thread/store.js";
import { providerStateTooLarge } from "../thread/stores/common.js";

/** A store call whose untyped failure becomes `store_failed`, as every thread store call in core. */
async function stored<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw AdaptorError.is(error) ? error : new StoreError("store_failed", "the thread store failed", { cause: error });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** A copy of `value` as JSON carries it, each string with the registered secrets removed. */
function redactedJson(value: unknown, redact: (s: string) => string, depth = 0): unknown {
  if (depth > 256) throw new ConfigError("provider state: the document is nested too deeply");
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") return redact(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new ConfigError("provider state: numbers must be finite");
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => redactedJson(item, redact, depth + 1));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      out[redact(key)] = redactedJson(item, redact, depth + 1);
    }
    return out;
  }
  throw new ConfigError(`provider state: a ${typeof value} is not a JSON value`);
}

/**
 * The handle for thread `id` written as `owner`, or undefined when the store keeps no provider
 * state (a host's own store without the optional methods).
 */
export function providerStateHandle(store: ThreadStore, id: string, owner: string, redactor: Redactor, maxBytes = PROVIDER_STATE_MAX_BYTES): ProviderStateHandle | undefined {
  if (typeof store.loadProviderState !== "function" || typeof store.saveProviderState !== "function") return undefined;
  const limit = Math.min(maxBytes, PROVIDER_STATE_MAX_BYTES);
  return {
    maxBytes: limit,
    async load(): Promise<unknown> {
      const text = await stored(store.loadProviderState!(id));
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch (cause) {
        throw new StoreError("store_corrupt", "the thread's provider state is not readable JSON", { cause });
      }
    },
    async save(document: unknown): Promise<void> {
      const text = JSON.stringify(redactedJson(document, (s) => redactSecretsOnly(redactor, s)));
      if (text.length * 3 > limit && Buffer.byteLength(text, "utf8") > limit) throw providerStateTooLarge(limit);
      await stored(store.saveProviderState!(id, owner, text));
    },
  };
}

/**
 * Copies thread `from`'s provider state to thread `to` as `owner` (who holds `to`'s lease): a
 * fork starts with its parent's document. Nothing when the store keeps none or `from` has none.
 */
export async function copyProviderState(store: ThreadStore, from: string, to: string, owner: string): Promise<void> {
  if (typeof store.loadProviderState !== "function" || typeof store.saveProviderState !== "function") return;
  const text = await stored(store.loadProviderState(from));
  if (text !== undefined) await stored(store.saveProviderState(to, owner, text));
}
