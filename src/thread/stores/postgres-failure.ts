/**
 * The typed failure for what `pg` threw under a thread or session store: one mapping for both, so
 * the two stores sharing a schema fail alike. Messages name the condition only: never the host,
 * the user, the database name or anything else from the connection string.
 */
import { AdaptorError, ConfigError, StoreError } from "../../errors/index.js";

/** The store a failure names. */
export type PostgresStoreKind = "thread" | "session";

/** Maps what `pg` threw; `pool` is read only for its connection counts. */
export type PostgresFailure = (err: unknown, pool: unknown) => AdaptorError;

/** SQLSTATE classes and codes (PostgreSQL appendix A) by the store failure they are. */
function codeOfSqlState(state: string): { code: StoreError["code"]; message: string; retryable: boolean } | undefined {
  if (state.startsWith("28") || state === "42501") {
    return { code: "store_auth_failed", message: "the PostgreSQL server refused the credentials, role or privileges", retryable: false };
  }
  if (state === "3D000") return { code: "store_unavailable", message: "the PostgreSQL database does not exist", retryable: false };
  if (state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03") {
    return { code: "store_unavailable", message: "the PostgreSQL server is unavailable", retryable: true };
  }
  if (state === "53300") return { code: "store_busy", message: "the PostgreSQL server has too many connections", retryable: true };
  if (state === "55P03" || state === "40001" || state === "40P01") {
    return { code: "store_busy", message: "the PostgreSQL server could not take a lock in time", retryable: true };
  }
  if (state === "25006") return { code: "store_read_only", message: "the PostgreSQL server accepts no writes (read-only)", retryable: false };
  if (state === "XX001" || state === "XX002") return { code: "store_corrupt", message: "the PostgreSQL server reported corrupt data", retryable: false };
  return undefined;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);

/** The failure mapping of one store (`postgresThreadStore`, `postgresSessionStore`). */
export function postgresFailureOf(store: PostgresStoreKind): PostgresFailure {
  const factory = store === "thread" ? "postgresThreadStore" : "postgresSessionStore";
  return (err, pool) => {
    if (AdaptorError.is(err)) return err;
    const code = (err as { code?: unknown } | null)?.code;
    const message = err instanceof Error ? err.message : "";
    if (code === "ERR_INVALID_URL") return new ConfigError(`${factory}: connectionString is not a valid URL`);
    const fail = (kind: StoreError["code"], text: string, retryable: boolean) => new StoreError(kind, text, { retryable, cause: err });
    if (typeof code === "string" && NETWORK_CODES.has(code)) {
      return fail("store_unavailable", `the PostgreSQL server cannot be reached (${code})`, true);
    }
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
      const known = codeOfSqlState(code);
      if (known) return fail(known.code, known.message, known.retryable);
      return fail("store_failed", `the PostgreSQL server reported an error (SQLSTATE ${code})`, false);
    }
    if (/timeout exceeded when trying to connect/i.test(message)) {
      // pg.Pool gives one error for both: no connection became free, or a new one did not open.
      const counts = pool as { totalCount?: unknown; options?: { max?: unknown } } | null;
      const exhausted = typeof counts?.totalCount === "number" && typeof counts.options?.max === "number" && counts.totalCount >= counts.options.max;
      return exhausted
        ? fail("store_busy", "every connection of the PostgreSQL pool stayed in use past the connect timeout", true)
        : fail("store_unavailable", "connecting to the PostgreSQL server timed out", true);
    }
    if (/connection terminated|not queryable|client has encountered a connection error/i.test(message)) {
      return fail("store_unavailable", "the connection to the PostgreSQL server was lost", true);
    }
    return fail("store_failed", `the PostgreSQL ${store} store failed`, false);
  };
}
