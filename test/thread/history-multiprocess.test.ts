/**
 * A thread resumed in another OS process shows the same history: this process runs two turns,
 * a child process (the library transpiled, run with plain node) resumes the thread through its
 * own agent and store connection, runs a third and reads the whole history back; both processes
 * then see the same three turns, with SQLite and with PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAgent, type HistoryTurn, type ThreadStore } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { postgresThreadStore } from "../../src/thread/stores/postgres.js";
import { sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { buildWorker, dropSchemas, PG_REQUIRED, PG_URL, startWorker, uniqueSchema, type Child } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "aa-history-mp-"));
const schemas = new Set<string>();
const children: Child[] = [];
let worker: string;
let build: string | undefined;

beforeAll(async () => {
  ({ worker, dir: build } = await buildWorker({ worker: "history-worker.js" }));
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  if (build !== undefined) rmSync(build, { recursive: true, force: true });
  if (PG_URL !== undefined) await dropSchemas(PG_URL, schemas);
});

async function sameHistoryAcrossProcesses(store: ThreadStore, target: Record<string, unknown>): Promise<void> {
  const agent = createAgent(fakeDriver({ script: (prompt) => ({ steps: [{ emit: { type: "message.completed", itemId: "m1", text: `reply to ${prompt}` } }], text: `reply to ${prompt}` }) }), { workspace: "/repo", threadStore: store });
  try {
    const thread = await agent.startThread();
    await thread.run("first here");
    await thread.run("second here");

    const child = startWorker(worker, { ...target, id: thread.id, prompt: "third, elsewhere", workspace: "/repo" });
    children.push(child);
    const exit = await child.exited;
    expect(exit.code, child.stderr()).toBe(0);
    const seen = JSON.parse(child.lines.at(-1)!) as { pid: number; turns: HistoryTurn[] };
    expect(seen.pid).not.toBe(process.pid);

    const here = await thread.history();
    expect(seen.turns).toEqual(here.turns);
    expect(here.turns.map((t) => [t.turn, t.status, t.prompt])).toEqual([
      [3, "completed", "third, elsewhere"],
      [2, "completed", "second here"],
      [1, "completed", "first here"],
    ]);
    expect(here.turns[0]!.events.find((e) => e.type === "message.completed")).toMatchObject({ text: "reply to third, elsewhere" });
    expect((await thread.info()).checkpoint.turns).toBe(3);
  } finally {
    await agent.close();
  }
}

describe("history across OS processes", () => {
  it("SQLite: a thread resumed in another process shows the same history", async () => {
    const path = join(dir, "threads.db");
    const store = sqliteThreadStore(path);
    try {
      await sameHistoryAcrossProcesses(store, { store: "sqlite", path });
    } finally {
      await store.close();
    }
  }, 60_000);

  it.skipIf(PG_URL === undefined && !PG_REQUIRED)("PostgreSQL: a thread resumed in another process shows the same history", async () => {
    const schema = uniqueSchema("aa_hist_mp");
    schemas.add(schema);
    const store = await postgresThreadStore({ connectionString: PG_URL!, schema });
    try {
      await sameHistoryAcrossProcesses(store, { store: "postgres", url: PG_URL, schema });
    } finally {
      await store.close();
    }
  }, 60_000);
});
