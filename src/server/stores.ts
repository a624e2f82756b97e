/**
 * The server's thread and session stores, sharing one database: a SQLite file (default
 * `<stateDir>/serve.db`) or a PostgreSQL server by URL.
 */
import { join } from "node:path";
import { postgresSessionStore } from "../session/stores/postgres.js";
import { sqliteSessionStore } from "../session/stores/sqlite.js";
import type { SessionStore } from "../session/types.js";
import { postgresThreadStore } from "../thread/stores/postgres.js";
import { sqliteThreadStore } from "../thread/stores/sqlite.js";
import type { ThreadStore } from "../thread/store.js";
import type { ServerConfig } from "./config.js";

export const DEFAULT_SQLITE_FILE = "serve.db";

export interface ServerStores {
  threads: ThreadStore;
  sessions: SessionStore;
  close(): Promise<void>;
}

export async function openStores(config: ServerConfig["store"], stateDir: string): Promise<ServerStores> {
  if (config?.postgres !== undefined) {
    const shared = { connectionString: config.postgres, maxConnections: 5, ...(config.schema !== undefined ? { schema: config.schema } : {}) };
    const threads = await postgresThreadStore(shared);
    const sessions = await postgresSessionStore(shared).catch(async (error: unknown) => {
      await threads.close();
      throw error;
    });
    return { threads, sessions, close: () => closeBoth(sessions, threads) };
  }
  const path = config?.sqlite ?? join(stateDir, DEFAULT_SQLITE_FILE);
  const threads = sqliteThreadStore(path);
  let sessions: SessionStore;
  try {
    sessions = sqliteSessionStore({ path });
  } catch (error) {
    await threads.close();
    throw error;
  }
  return { threads, sessions, close: () => closeBoth(sessions, threads) };
}

async function closeBoth(sessions: SessionStore, threads: ThreadStore): Promise<void> {
  await Promise.allSettled([sessions.close(), threads.close()]);
}
