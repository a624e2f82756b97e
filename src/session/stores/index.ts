/** The built-in session stores: in memory (the default), SQLite and PostgreSQL. */
export { memorySessionStore } from "./memory.js";
export type { MemorySessionStoreOptions } from "./memory.js";
export { sqliteSessionStore, SQLITE_SESSION_SCHEMA_VERSION } from "./sqlite.js";
export type { SqliteDatabaseLike, SqliteSessionStore, SqliteSessionStoreOptions } from "./sqlite.js";
export { postgresSessionStore, POSTGRES_SESSION_SCHEMA_VERSION } from "./postgres.js";
export type { PostgresSessionStore, PostgresSessionStoreOptions } from "./postgres.js";
