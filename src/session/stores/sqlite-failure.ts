/**
 * The typed failure for what SQLite (or better-sqlite3) threw under a session store. Messages
 * name the condition only: never the path, which the host already knows.
 */
import { accessSync, constants } from "node:fs";
import { dirname } from "node:path";

import { AdaptorError, StoreError } from "../../errors/index.js";

function canWriteDirectoryOf(path: string): boolean {
  try {
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function sqliteFailure(err: unknown, path: string, busyTimeoutMs: number): AdaptorError {
  if (AdaptorError.is(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const sqlite = typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
  const fail = (kind: StoreError["code"], message: string, retryable = false) => new StoreError(kind, message, { retryable, cause: err });
  if (sqlite === undefined) {
    if (err instanceof TypeError && /directory does not exist/.test(err.message)) {
      return fail("store_unavailable", "the session database cannot be opened: its directory does not exist");
    }
    return fail("store_failed", "the session database failed");
  }
  if (sqlite.startsWith("SQLITE_BUSY") || sqlite.startsWith("SQLITE_LOCKED")) {
    return fail("store_busy", `the session database stayed locked for over ${busyTimeoutMs} ms`, true);
  }
  if (sqlite.startsWith("SQLITE_READONLY") || sqlite === "SQLITE_PERM") {
    return fail("store_read_only", "the session database or its directory is read-only");
  }
  if (sqlite === "SQLITE_NOTADB" || sqlite.startsWith("SQLITE_CORRUPT")) {
    return fail("store_corrupt", "the session database file is not a database or is corrupt");
  }
  if (sqlite.startsWith("SQLITE_CANTOPEN")) {
    return path !== ":memory:" && path !== "" && !canWriteDirectoryOf(path)
      ? fail("store_read_only", "the session database cannot be created: its directory is read-only")
      : fail("store_unavailable", "the session database file cannot be opened");
  }
  if (sqlite === "SQLITE_FULL") return fail("store_failed", "the session database's disk is full");
  return fail("store_failed", `the session database failed (${sqlite})`);
}
