/**
 * Restart recovery across a real crash (issue #18 item 9, "Must show"): a child process drives a
 * session on a durable store (SQLite; PostgreSQL when AGENT_ADAPTOR_TEST_PG_URL is set), has a run
 * in flight and two prompts queued, and is SIGKILLed. This process then reopens the session: a
 * second host is refused while the dead one's ownership lasts, the interrupted run is recorded as
 * `host_restart` and never replayed, the guardrails and the queue are restored (the prompt whose
 * input lived in the dead process dropped with `inputs_lost`), and the next input continues the
 * provider conversation natively (once the dead run's thread lease has run out): the restored
 * queue runs first, then the new input. The dead host held its ownership and its thread lease with
 * short TTLs (5 s and 3 s, see fixtures/restart-host.ts), so the takeover waits seconds, not 30 s.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent, postgresSessionStore, postgresThreadStore, sqliteSessionStore, sqliteThreadStore, type SessionStatus, type SessionStore, type ThreadStore } from "../../src/index.js";
import { openSession } from "../../src/session/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { dropSchemas, PG_URL, startWorker, uniqueSchema } from "../thread/helpers.js";
import { buildSessionFixture } from "./child.js";
import { closeInOrder, logOf, noticesOf, openWhenReleased, until } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "session-restart-"));
const inputPath = join(dir, "note.txt");
writeFileSync(inputPath, "a note");
const built = await buildSessionFixture("restart-host");
const schemas: string[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(built.dir, { recursive: true, force: true });
  if (PG_URL) await dropSchemas(PG_URL, schemas);
});

interface Lane {
  name: string;
  config(): Record<string, unknown>;
  open(config: Record<string, unknown>): Promise<{ threadStore: ThreadStore; store: SessionStore }>;
}

const lanes: Lane[] = [
  {
    name: "SQLite",
    config: () => ({ sqlite: join(dir, `sessions-${schemas.length}-${Date.now()}.db`) }),
    open: async (config) => ({ threadStore: sqliteThreadStore(config.sqlite as string), store: sqliteSessionStore({ path: config.sqlite as string }) }),
  },
  ...(PG_URL
    ? [{
        name: "PostgreSQL",
        config: () => {
          const schema = uniqueSchema("aa_session_restart");
          schemas.push(schema);
          return { pg: { url: PG_URL, schema } };
        },
        open: async (config: Record<string, unknown>) => {
          const { url, schema } = config.pg as { url: string; schema: string };
          return { threadStore: await postgresThreadStore({ connectionString: url, schema }), store: await postgresSessionStore({ connectionString: url, schema }) };
        },
      }]
    : []),
];

describe.each(lanes)("a host killed with SIGKILL mid-run ($name)", (lane) => {
  it("is recovered by the next host: host_restart recorded, guardrails and queue restored, the conversation continued", async () => {
    const config = { id: `restart-${Date.now()}`, inputPath, ...lane.config() };
    const child = startWorker(built.worker, config);
    const ready = await child.line((line) => line.startsWith("READY "), 60_000);
    const before = JSON.parse(ready.slice("READY ".length)) as SessionStatus;
    expect(before.inFlight).toBeDefined();
    expect(before.queued).toHaveLength(2);
    // Opened before the kill, so that the refusal below comes well within the dead host's ownership.
    const { threadStore, store } = await lane.open(config);
    const driver = fakeDriver();
    const agent = createAgent(driver, { threadStore });
    try {
      child.proc.kill("SIGKILL");
      await child.exited;
      // The dead host's ownership has not run out yet.
      await expect(openSession(agent, config.id, { store })).rejects.toMatchObject({ code: "session_owned" });
      const session = await openWhenReleased(() => openSession(agent, config.id, { store }));
      const log = await logOf(session);
      expect(noticesOf(log, "session.run_interrupted")).toEqual([{ type: "session.run_interrupted", runId: before.inFlight!.runId, code: "host_restart" }]);
      expect(noticesOf(log, "session.prompt_dropped")).toEqual([{ type: "session.prompt_dropped", promptId: before.queued[1], reason: "inputs_lost" }]);
      // The restored queue runs at once (it waits for the dead run's thread lease to run out).
      expect(session.status()).toMatchObject({ state: "running", queued: [], inFlight: { promptIds: [before.queued[0]] }, guardrails: { spentUsd: 0.5, spentTokens: 15, budget: { sessionUsd: 10 } } });
      expect(noticesOf(log, "session.run_admitted").at(-1)?.promptIds).toEqual([before.queued[0]]);
      await session.submit("next input");
      await until(() => session.state() === "idle" && driver.probe.runs.length === 2);
      // Never replayed: the interrupted "long job" is not among the runs; both continue the dead host's conversation.
      expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["queued after", "next input"]);
      expect(driver.probe.runs.map((run) => run.thread?.providerSessionId)).toEqual(["fake_session_1", "fake_session_1"]);
      await session.close();
    } finally {
      await closeInOrder(agent, store, threadStore);
    }
  }, 120_000);
});
