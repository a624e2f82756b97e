/**
 * Store failures are typed: SQLite and PostgreSQL conditions surface as `StoreError`s with stable
 * codes and messages that name neither a path nor a credential, and a store failing during a run
 * fails the run with the store's code, never `provider_error`.
 */
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAgent, StoreError, type AgentEvent, type ThreadStore } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";
import { postgresThreadStore } from "../../src/thread/stores/postgres.js";
import { sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { buildWorker, dropSchemas, PG_URL, startWorker, uniqueSchema } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "aa-store-failures-"));
afterAll(() => {
  chmodAll(dir);
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;
const fresh = (): string => {
  const sub = join(dir, `case-${++n}`);
  mkdirSync(sub);
  return sub;
};
const record = (id: string) => ({ id, driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });

/** Restores write permission everywhere below `path` so the directory can be removed. */
function chmodAll(path: string): void {
  chmodSync(path, 0o777);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chmodAll(join(path, entry));
}

/** A typed store failure whose message holds none of `hidden`. */
function expectStoreError(error: unknown, code: string, hidden: string[]): void {
  expect(error).toBeInstanceOf(StoreError);
  expect(error).toMatchObject({ code });
  const message = (error as Error).message;
  for (const text of hidden) expect(message).not.toContain(text);
}

function catchSync(open: () => unknown): unknown {
  try {
    open();
  } catch (error) {
    return error;
  }
  throw new Error("expected the store to fail");
}

describe("SQLite store failures", () => {
  it("a missing directory is store_unavailable, without the path", () => {
    const where = join(fresh(), "no-such-dir");
    expectStoreError(catchSync(() => sqliteThreadStore(join(where, "threads.db"))), "store_unavailable", [where, "no-such-dir"]);
  });

  it("a file that is not a database is store_corrupt", () => {
    const path = join(fresh(), "notes.db");
    writeFileSync(path, "these are notes, not a database\n".repeat(200));
    expectStoreError(catchSync(() => sqliteThreadStore(path)), "store_corrupt", [path, "notes.db"]);
  });

  it("a corrupted database is store_corrupt", async () => {
    const path = join(fresh(), "threads.db");
    const store = sqliteThreadStore(path);
    for (let i = 0; i < 200; i++) await store.create({ ...record(`t${i}`), metadata: { pad: "x".repeat(200) } });
    await store.close();
    // Keep the header page (the schema) and overwrite the table's pages.
    const fd = openSync(path, "r+");
    const garbage = Buffer.alloc(statSync(path).size - 4096, 0x41);
    writeSync(fd, garbage, 0, garbage.length, 4096);
    closeSync(fd);
    const error = await (async () => {
      try {
        const reopened = sqliteThreadStore(path);
        await reopened.list({ limit: 1000 });
        await reopened.close();
      } catch (e) {
        return e;
      }
      throw new Error("expected the store to fail");
    })();
    expectStoreError(error, "store_corrupt", [path]);
  });

  describe("read-only", () => {
    // Root ignores permission bits: then the store is opened by a child running as `nobody`.
    const asRoot = process.getuid?.() === 0;
    const nobody = asRoot ? { uid: 65534, gid: 65534 } : undefined;
    let worker = "";
    let build = "";
    beforeAll(async () => {
      ({ worker, dir: build } = await buildWorker());
      chmodSync(build, 0o755);
      chmodSync(dir, 0o755);
    }, 60_000);
    afterAll(() => rmSync(build, { recursive: true, force: true }));

    const probe = async (path: string): Promise<{ ok?: boolean; code?: string; message?: string }> => {
      const child = startWorker(worker, { mode: "probe", store: "sqlite", path, id: "t", owner: "o", ttlMs: 1000 }, nobody);
      const line = await child.line((l) => l.startsWith("{"));
      await child.exited;
      return JSON.parse(line) as { ok?: boolean; code?: string; message?: string };
    };
    const existing = async (sub: string): Promise<string> => {
      const path = join(sub, "threads.db");
      await sqliteThreadStore(path).close();
      return path;
    };

    it("a read-only database file is store_read_only", async () => {
      const sub = fresh();
      const path = await existing(sub);
      chmodSync(sub, 0o777);
      chmodSync(path, 0o444);
      const outcome = await probe(path);
      expect(outcome).toMatchObject({ code: "store_read_only" });
      expect(outcome.message).not.toContain(sub);
    });

    it("a database in a read-only directory is store_read_only", async () => {
      const sub = fresh();
      const path = await existing(sub);
      chmodSync(path, 0o666);
      chmodSync(sub, 0o555);
      const outcome = await probe(path);
      expect(outcome).toMatchObject({ code: "store_read_only" });
      expect(outcome.message).not.toContain(sub);
    });

    it("a new database in a read-only directory is store_read_only", async () => {
      const sub = fresh();
      chmodSync(sub, 0o555);
      const outcome = await probe(join(sub, "threads.db"));
      expect(outcome).toMatchObject({ code: "store_read_only" });
      expect(outcome.message).not.toContain(sub);
    });
  });
});

describe.skipIf(PG_URL === undefined)("PostgreSQL store failures", () => {
  const url = PG_URL ?? "";
  const created = new Set<string>();
  afterAll(() => dropSchemas(url, created));
  const password = "canary-pw-7f3a9c";
  const withCredentials = (change: (u: URL) => void): string => {
    const u = new URL(url);
    u.password = password;
    change(u);
    return u.toString();
  };
  const hidden = (connection: string): string[] => {
    const u = new URL(connection);
    return [connection, password, u.username, u.pathname.slice(1), `${u.hostname}:${u.port}`];
  };

  it("a closed port is store_unavailable and retryable, without the connection string", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const connection = withCredentials((u) => {
      u.hostname = "127.0.0.1";
      u.port = String(port);
    });
    const error = await postgresThreadStore({ connectionString: connection }).catch((e: unknown) => e);
    expectStoreError(error, "store_unavailable", hidden(connection));
    expect((error as StoreError).retryable).toBe(true);
  });

  it("an unknown role is store_auth_failed, without the credentials", async () => {
    const connection = withCredentials((u) => {
      u.username = "no_such_role_42";
    });
    const error = await postgresThreadStore({ connectionString: connection }).catch((e: unknown) => e);
    expectStoreError(error, "store_auth_failed", hidden(connection));
    expect((error as StoreError).retryable).toBe(false);
  });

  it("a missing database is store_unavailable, without its name", async () => {
    const connection = withCredentials((u) => {
      u.pathname = "/no_such_database_42";
    });
    const error = await postgresThreadStore({ connectionString: connection }).catch((e: unknown) => e);
    expectStoreError(error, "store_unavailable", hidden(connection));
    expect((error as StoreError).retryable).toBe(false);
  });

  it("an exhausted pool is store_busy and retryable", async () => {
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 200 });
    const schema = uniqueSchema();
    created.add(schema);
    try {
      const store = await postgresThreadStore({ pool, schema });
      const held = await pool.connect();
      try {
        const error = await store.get("t").catch((e: unknown) => e);
        expectStoreError(error, "store_busy", hidden(url));
        expect((error as StoreError).retryable).toBe(true);
      } finally {
        held.release();
      }
      await store.close();
    } finally {
      await pool.end();
    }
  });
});

describe("a store failing during a run", () => {
  const approveThenLock = (lock: () => void) => ({
    driver: fakeDriver({
      script: { steps: [{ approve: { requestId: "r1", kind: "command" as const, summary: "go", options: [] } }], text: "done" },
    }),
    onApproval: async () => {
      lock();
      return { decision: "allow" as const };
    },
  });

  it("fails the run with the store's code (SQLite checkpoint write locked out), never provider_error", async () => {
    const path = join(fresh(), "threads.db");
    const store = sqliteThreadStore(path, { busyTimeoutMs: 50 });
    const db = new (await import("better-sqlite3")).default(path);
    const { driver, onApproval } = approveThenLock(() => db.exec("BEGIN IMMEDIATE"));
    const agent = createAgent(driver, { threadStore: store, defaults: { onApproval } });
    try {
      const thread = await agent.startThread();
      const events: AgentEvent[] = [];
      const stream = thread.stream("go");
      const drained = (async () => {
        for await (const event of stream) events.push(event);
      })();
      const error = await stream.result.catch((e: unknown) => e);
      await drained;
      expect(error).toMatchObject({ code: "store_busy", retryable: true });
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "store_busy", retryable: true } });
    } finally {
      if (db.inTransaction) db.exec("ROLLBACK");
      db.close();
      await agent.close();
      await store.close();
    }
  });

  it("fails the run with the store's code when recording the provider session is locked out, never provider_error", async () => {
    const path = join(fresh(), "threads.db");
    const store = sqliteThreadStore(path, { busyTimeoutMs: 50 });
    const db = new (await import("better-sqlite3")).default(path);
    const driver = fakeDriver({
      threads: false,
      script: {
        steps: [
          { approve: { requestId: "r1", kind: "command" as const, summary: "go", options: [] } },
          { emit: { type: "thread.bound", providerSessionId: "session-1" } },
        ],
        text: "done",
      },
    });
    const onApproval = async () => {
      db.exec("BEGIN IMMEDIATE");
      return { decision: "allow" as const };
    };
    const agent = createAgent(driver, { threadStore: store, defaults: { onApproval } });
    try {
      const thread = await agent.startThread();
      const error = await thread.run("go").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "store_busy", retryable: true });
    } finally {
      if (db.inTransaction) db.exec("ROLLBACK");
      db.close();
      await agent.close();
      await store.close();
    }
  });

  it("a host store's untyped failure is store_failed, never provider_error", async () => {
    const inner = memoryThreadStore();
    let broken = false;
    const store: ThreadStore = {
      ...inner,
      create: (r) => inner.create(r),
      get: (id) => inner.get(id),
      list: (o) => inner.list(o),
      delete: (id) => inner.delete(id),
      acquireLease: (id, owner, ttl) => inner.acquireLease(id, owner, ttl),
      renewLease: (id, owner, ttl) => inner.renewLease(id, owner, ttl),
      releaseLease: (id, owner) => inner.releaseLease(id, owner),
      saveCheckpoint: (id, owner, update) => (broken ? Promise.reject(new Error("disk quota exceeded")) : inner.saveCheckpoint(id, owner, update)),
      close: () => inner.close(),
    };
    const { driver, onApproval } = approveThenLock(() => {
      broken = true;
    });
    const agent = createAgent(driver, { threadStore: store, defaults: { onApproval } });
    try {
      const thread = await agent.startThread();
      const error = await thread.run("go").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "store_failed" });
    } finally {
      await agent.close();
      await store.close();
    }
  });
});

describe("the thread id limit", () => {
  it("a thread id of at most 512 characters is accepted by startThread and fork, a longer one refused before the store", async () => {
    const agent = createAgent(fakeDriver({ threads: false }));
    try {
      const longest = "t".repeat(512);
      const thread = await agent.startThread({ id: longest });
      expect(thread.id).toBe(longest);
      await expect(agent.startThread({ id: "t".repeat(513) })).rejects.toMatchObject({ code: "config_invalid" });
      await expect(thread.fork({ id: "f".repeat(513) })).rejects.toMatchObject({ code: "config_invalid" });
      expect((await thread.fork({ id: "f".repeat(512) })).id).toBe("f".repeat(512));
    } finally {
      await agent.close();
    }
  });
});
