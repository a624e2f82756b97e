/**
 * The typed failure for what SQLite (or better-sqlite3) threw under a thread or session store:
 * one mapping for both, so the two stores sharing a database file fail alike. Messages name the
 * condition and whose database it is only: never the path, which the host already knows.
 */
import { accessSync, constants } from "node:fs";
import { dirname } from "node:path";

import { AdaptorError, StoreError } from "../../errors/index.js";

/** The store whose database a failure names. */
export type SqliteStoreKind = "thread" | "session";

export type SqliteFailure = (err: unknown, path: string, busyTimeoutMs: number) => AdaptorError;

function canWriteDirectoryOf(path: string): boolean {
  try {
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The failure mapping of one store's database ("the thread database", "the session database"). */
export function sqliteFailureOf(store: SqliteStoreKind): SqliteFailure {
  const database = `the ${store} database`;
  return (err, path, busyTimeoutMs) => {
    if (AdaptorError.is(err)) return err;
    const code = (err as { code?: unknown } | null)?.code;
    const sqlite = typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
    const fail = (kind: StoreError["code"], message: string, retryable = false) => new StoreError(kind, message, { retryable, cause: err });
    if (sqlite === undefined) {
      // better-sqlite3 checks the directory itself before SQLite sees the path.
      if (err instanceof TypeError && /directory does not exist/.test(err.message)) {
        return fail("store_unavailable", `${database} cannot be opened: its directory does not exist`);
      }
      return fail("store_failed", `${database} failed`);
    }
    if (sqlite.startsWith("SQLITE_BUSY") || sqlite.startsWith("SQLITE_LOCKED")) {
      return fail("store_busy", `${database} stayed locked for over ${busyTimeoutMs} ms`, true);
    }
    if (sqlite.startsWith("SQLITE_READONLY") || sqlite === "SQLITE_PERM") {
      return fail("store_read_only", `${database} or its directory is read-only`);
    }
    if (sqlite === "SQLITE_NOTADB" || sqlite.startsWith("SQLITE_CORRUPT")) {
      return fail("store_corrupt", `${database} file is not a database or is corrupt`);
    }
    if (sqlite.startsWith("SQLITE_CANTOPEN")) {
      return path !== ":memory:" && path !== "" && !canWriteDirectoryOf(path)
        ? fail("store_read_only", `${database} cannot be created: its directory is read-only`)
        : fail("store_unavailable", `${database} file cannot be opened`);
    }
    if (sqlite === "SQLITE_FULL") return fail("store_failed", `${database}'s disk is full`);
    return fail("store_failed", `${database} failed (${sqlite})`);
  };
}
