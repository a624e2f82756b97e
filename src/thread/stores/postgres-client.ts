/**
 * What the PostgreSQL thread and session stores share: the pool (their own or the host's), the
 * schema migration under an advisory lock, and the prepared-statement query every call goes
 * through. One copy, so the two stores sharing a schema connect, migrate and fail alike.
 */
import { createHash } from "node:crypto";

import type PgModule from "pg";

import { ConfigError, StoreError } from "../../errors/index.js";
import { postgresFailureOf, type PostgresStoreKind } from "./postgres-failure.js";

/** The part of a `pg` query result the store reads. */
export interface PostgresQueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** A query as `pg` takes it; a `name` makes it a prepared statement, parsed once per connection. */
export interface PostgresQuery {
  text: string;
  values?: unknown[];
  name?: string;
}

/** A connection checked out of a pool (`pg.PoolClient` fits). */
export interface PostgresClientLike {
  query(query: PostgresQuery): Promise<PostgresQueryResult>;
  release(err?: Error | boolean): void;
}

/** A connection pool (`pg.Pool` fits). The store never ends a pool it was given. */
export interface PostgresPoolLike {
  query(query: PostgresQuery): Promise<PostgresQueryResult>;
  connect(): Promise<PostgresClientLike>;
}

/** The connection options both stores take. */
export interface PostgresConnectOptions {
  connectionString?: string;
  pool?: PostgresPoolLike;
  maxConnections?: number;
  connectTimeoutMs?: number;
}

/** One unprepared statement on the migrating connection. */
type PostgresRun = (text: string, values?: unknown[]) => Promise<PostgresQueryResult>;

/** The migrating connection: its queries, and an advisory lock held around a step. */
interface MigrationConnection {
  query: PostgresRun;
  locked<T>(key: string, body: () => Promise<T>): Promise<T>;
}

/** A store's forward migrations and the table recording how far they went. */
export interface PostgresMigrations {
  /** The version table, unquoted, inside the schema. */
  table: string;
  /** In order; each is idempotent. Never edit a released entry: append. */
  steps: readonly ((s: string) => string)[];
  /** The advisory lock the steps run under: one migrator per schema at a time across every host. */
  lock: string;
  /** The start of the message refusing tables newer than `steps`, before the version number. */
  newerThan: string;
}

/** How one store connects. */
export interface PostgresStoreSpec {
  kind: PostgresStoreKind;
  /** Prefix of the prepared statements' names. */
  statementPrefix: string;
  migrations: PostgresMigrations;
  /** The failure a call after `close()` throws. */
  closedError(): Error;
}

/** A connected, migrated store's access to the database. */
export interface PostgresStoreConnection {
  readonly schemaVersion: number;
  /** One statement, prepared once per connection; fails with the store's typed failure. */
  query(text: string, values: unknown[]): Promise<PostgresQueryResult>;
  /** Later queries fail with the closed error; the store's own pool ends. Idempotent. */
  close(): Promise<void>;
}

/** Now, in epoch milliseconds, on the database clock. */
export const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
/** Now as a timestamp with millisecond precision (what a JavaScript date can hold). */
export const NOW_TS = `date_trunc('milliseconds', clock_timestamp())`;
/** A timestamp column as ISO 8601 text in UTC. */
export const ISO = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function factoryOf(kind: PostgresStoreKind): string {
  return kind === "thread" ? "postgresThreadStore" : "postgresSessionStore";
}

/** The schema name quoted for SQL text; anything but a plain identifier is refused. */
export function quoteSchema(schema: string, kind: PostgresStoreKind): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(`${factoryOf(kind)}: schema must be a plain identifier (letters, digits, underscore)`);
  }
  return `"${schema}"`;
}

/** The advisory lock the thread store migrates under (its `migrations.lock`). */
export const threadMigrationLock = (schema: string): string => `agent-adaptor/threads/${schema}`;

/**
 * Creates the schema (quoted `s`) when missing, under the thread store's migration lock: both
 * stores may open a new shared schema at once, and two concurrent `CREATE SCHEMA IF NOT EXISTS`
 * can still collide.
 */
async function createSchema(connection: MigrationConnection, schema: string, s: string): Promise<void> {
  const exists = await connection.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema]);
  if (exists.rowCount !== 0) return;
  await connection.locked(threadMigrationLock(schema), async () => {
    try {
      await connection.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    } catch (err) {
      // Created meanwhile by someone not taking the lock: what was wanted.
      const code = (err as { code?: unknown }).code;
      if (code !== "42P06" && code !== "23505") throw err;
    }
  });
}

/** Applies the steps not yet recorded in the version table, each in its own transaction. */
async function migrateSteps(query: PostgresRun, s: string, migrations: PostgresMigrations): Promise<number> {
  const { table, steps } = migrations;
  await query(`CREATE TABLE IF NOT EXISTS ${s}.${table} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const { rows } = await query(`SELECT coalesce(max(version), 0) AS version FROM ${s}.${table}`);
  let version = Number(rows[0]?.version ?? 0);
  if (version > steps.length) {
    throw new StoreError(
      "store_schema_newer",
      `${migrations.newerThan} ${version}, newer than this version of agent-adaptor understands (${steps.length})`,
    );
  }
  for (; version < steps.length; version++) {
    await query("BEGIN");
    try {
      await query(steps[version]!(s));
      await query(`INSERT INTO ${s}.${table} (version) VALUES ($1) ON CONFLICT (version) DO NOTHING`, [version + 1]);
      await query("COMMIT");
    } catch (err) {
      await query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  }
  return version;
}

/**
 * Runs `body` on one connection of the pool. A lock taken with `locked` is one migrator per key at
 * a time across every host; should its unlock fail, the connection is released as broken so the
 * pool drops it and the server frees the lock with the session.
 */
async function withConnection<T>(pool: PostgresPoolLike, body: (connection: MigrationConnection) => Promise<T>): Promise<T> {
  const connection = await pool.connect();
  const query: PostgresRun = (text, values) => connection.query({ text, values: values ?? [] });
  let broken: Error | undefined;
  const locked = async <L>(key: string, inner: () => Promise<L>): Promise<L> => {
    await query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [key]);
    try {
      return await inner();
    } finally {
      await query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [key]).catch((err: Error) => {
        broken = err;
      });
    }
  };
  try {
    return await body({ query, locked });
  } finally {
    connection.release(broken ?? false);
  }
}

/** `pg` is an optional peer dependency: only a store that opens its own pool needs it. */
async function loadPg(kind: PostgresStoreKind): Promise<typeof PgModule> {
  let imported: { default?: typeof PgModule } & typeof PgModule;
  try {
    imported = (await import("pg")) as unknown as { default?: typeof PgModule } & typeof PgModule;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw cause;
    throw new ConfigError(`${factoryOf(kind)} needs the \`pg\` package for a connectionString: run \`npm install pg\``, "config_invalid", { cause });
  }
  return imported.default ?? imported;
}

async function openPool(options: PostgresConnectOptions, kind: PostgresStoreKind): Promise<{ pool: PostgresPoolLike; own?: PgModule.Pool }> {
  if ((options.connectionString === undefined) === (options.pool === undefined)) {
    throw new ConfigError(`${factoryOf(kind)}: give exactly one of connectionString and pool`);
  }
  if (options.pool !== undefined) return { pool: options.pool };
  const pg = await loadPg(kind);
  const own = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // A write is acknowledged only after the server has flushed its WAL, whatever the database's
    // default is.
    options: "-c synchronous_commit=on",
  });
  // An idle connection that drops (server restart) is replaced on the next query; without a
  // listener the pool's error event would end the process.
  own.on("error", () => undefined);
  return { pool: own as unknown as PostgresPoolLike, own };
}

/** Opens the pool (or takes the host's), migrates the schema, and returns the store's query. */
export async function connectPostgresStore(options: PostgresConnectOptions, schema: string, spec: PostgresStoreSpec): Promise<PostgresStoreConnection> {
  const failure = postgresFailureOf(spec.kind);
  const { pool, own } = await openPool(options, spec.kind);
  let schemaVersion: number;
  try {
    schemaVersion = await withConnection(pool, async (connection) => {
      const s = quoteSchema(schema, spec.kind);
      await createSchema(connection, schema, s);
      return connection.locked(spec.migrations.lock, () => migrateSteps(connection.query, s, spec.migrations));
    });
  } catch (err) {
    await own?.end().catch(() => undefined);
    throw failure(err, pool);
  }
  let closed = false;
  // Every statement is prepared once per connection: its name is derived from its text (which
  // includes the schema), so stores on different schemas sharing a pool never collide.
  const names = new Map<string, string>();
  return {
    schemaVersion,
    async query(text, values) {
      if (closed) throw spec.closedError();
      let name = names.get(text);
      if (name === undefined) {
        name = `${spec.statementPrefix}${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
        names.set(text, name);
      }
      try {
        return await pool.query({ name, text, values });
      } catch (err) {
        throw failure(err, pool);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await own?.end();
    },
  };
}
