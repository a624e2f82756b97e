/**
 * Thread compatibility through the agent on a SQLite store, with the fake `codex app-server`
 * (real processes; the fake logs every spawn and request): rotating the provider key and a header
 * token, moving the model server and reinstalling the CLI elsewhere keep a stored thread usable —
 * it resumes its provider session; a record written by the previous version (digest parts) opens
 * with the same settings and after a rotation; a changed model default is refused before any
 * process starts, naming the setting and both values; canary secrets appear nowhere (the
 * database file, the record, events, the error).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent, sqliteThreadStore, ThreadIncompatibleError, type Agent, type ThreadStore } from "../../src/index.js";
import { codex, type CodexConfig } from "../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { signatureOf } from "../../src/driver/signature.js";
import { readFakeLog, writeFakeCodex, type FakeLogEntry } from "../drivers/codex/harness.js";

const KEY_1 = "canary-provider-key-1-9d2f7a";
const KEY_2 = "canary-provider-key-2-4c81e0";
const TOKEN_1 = "canary-header-token-1-b6e3";
const TOKEN_2 = "canary-header-token-2-07fa";
const CANARIES = [KEY_1, KEY_2, TOKEN_1, TOKEN_2];

const root = mkdtempSync(join(tmpdir(), "thread-compat-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fixtures = 0;
/** Per test: one workspace, one Codex home and one SQLite file shared by every agent. */
function fixture() {
  const dir = join(root, `f${fixtures++}`);
  const workspace = join(dir, "workspace");
  const home = join(dir, "home");
  for (const d of [workspace, home, join(dir, "install-1"), join(dir, "install-2")]) mkdirSync(d, { recursive: true });
  const first = writeFakeCodex(join(dir, "install-1"));
  // The same CLI reinstalled elsewhere.
  const moved = join(dir, "install-2", "codex");
  copyFileSync(first, moved);
  const logFile = join(dir, "log.jsonl");
  const database = join(dir, "threads.db");
  const config = (key: string, token: string, port: number, executable: string, extra: CodexConfig = {}): CodexConfig => ({
    executable,
    home,
    model: "gpt-fixture",
    env: { FAKE_CODEX_LOG: logFile, GATEWAY_KEY: key },
    provider: { id: "gateway", baseUrl: `http://127.0.0.1:${port}/v1`, wireApi: "responses", apiKeyEnv: "GATEWAY_KEY", headers: { "x-gateway-token": token } },
    ...extra,
  });
  const open = (c: CodexConfig): { agent: Agent; store: ThreadStore } => {
    const store = sqliteThreadStore(database);
    return { agent: createAgent(codex(c), { workspace, threadStore: store }), store };
  };
  const stored = () => [database, `${database}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1")).join("\n");
  return { workspace, first, moved, config, open, stored, log: () => readFakeLog(logFile) };
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const requests = (log: FakeLogEntry[], method: string) => log.filter((e) => e.event === "request" && e.method === method);

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

describe("thread compatibility across operations (SQLite, fake codex app-server)", () => {
  it("a rotated key and header token, a moved model server and a reinstalled CLI resume the stored thread", async () => {
    const f = fixture();
    const a = f.open(f.config(KEY_1, TOKEN_1, 4101, f.first));
    let id: string;
    let session: string | undefined;
    let firstEvents: AgentEvent[];
    try {
      const thread = await a.agent.startThread();
      id = thread.id;
      firstEvents = await collect(thread.stream("hello"));
      session = (await thread.info()).providerSessionId;
      expect(session).toBeDefined();
    } finally {
      await a.agent.close();
      await a.store.close();
    }

    const b = f.open(f.config(KEY_2, TOKEN_2, 5202, f.moved));
    try {
      const thread = await b.agent.resumeThread(id);
      const secondEvents = await collect(thread.stream("hello again"));
      expect(secondEvents.at(-1)?.type).toBe("run.completed");
      const record = await thread.info();
      expect(record).toMatchObject({ providerSessionId: session, checkpoint: { turns: 2 } });
      // The second process resumed the stored session; it was started with the new endpoint.
      const resumes = requests(f.log(), "thread/resume");
      expect(resumes.map((r) => r.params?.threadId)).toEqual([session]);
      const spawnArgs = f.log().filter((e) => e.event === "spawn").map((e) => (e.args ?? []).join(" "));
      expect(spawnArgs.at(-1)).toContain("127.0.0.1:5202");
      // Readable parts, none of them secret, none naming the endpoint or an install path.
      expect(record.fingerprint).toMatch(/^v2:[0-9a-f]{64}$/);
      expect(record.fingerprintParts).toMatchObject({ driver: "codex", workspace: f.workspace, model: "gpt-fixture", "driver.provider.id": "gateway" });
      const recordText = JSON.stringify(record);
      expect(recordText).not.toMatch(/4101|5202|install-/);
      expectNoCanary(recordText);
      expectNoCanary(JSON.stringify([...firstEvents, ...secondEvents]));
    } finally {
      await b.agent.close();
      await b.store.close();
    }
    expectNoCanary(f.stored());
  });

  it("a changed model default is refused before any process starts, naming the setting and both values", async () => {
    const f = fixture();
    const a = f.open(f.config(KEY_1, TOKEN_1, 4101, f.first));
    let id: string;
    try {
      const thread = await a.agent.startThread();
      id = thread.id;
      await thread.run("hello");
    } finally {
      await a.agent.close();
      await a.store.close();
    }
    const spawnsBefore = f.log().filter((e) => e.event === "spawn").length;
    const b = f.open(f.config(KEY_2, TOKEN_2, 5202, f.moved, { model: "gpt-other" }));
    try {
      const error = await b.agent.resumeThread(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ThreadIncompatibleError);
      const incompatible = error as ThreadIncompatibleError;
      expect(incompatible.dimensions).toEqual(["model"]);
      expect(incompatible.mismatches).toEqual([
        { dimension: "model", setting: "the codex driver config's default model", recorded: "gpt-fixture", current: "gpt-other" },
      ]);
      expect(incompatible.message).toContain('recorded "gpt-fixture", now "gpt-other"');
      expectNoCanary(`${incompatible.message} ${JSON.stringify(incompatible)}`);
      expect(f.log().filter((e) => e.event === "spawn")).toHaveLength(spawnsBefore);
    } finally {
      await b.agent.close();
      await b.store.close();
    }
  });

  it("a record written by the previous version opens with the same settings and after a key rotation, and resumes its session", async () => {
    const f = fixture();
    // What the previous version wrote: a digest per dimension, the driver config's over its
    // whole fingerprint() — which covered the key (as a digest), the header and the endpoint.
    const old = codex(f.config(KEY_1, TOKEN_1, 4101, f.first));
    const parts: Record<string, string> = {
      driver: signatureOf("codex"),
      "driver.config": signatureOf(old.fingerprint()),
      workspace: signatureOf(f.workspace),
      instructions: signatureOf(null),
      tools: signatureOf([]),
      skills: signatureOf([]),
      mcp: signatureOf([]),
      model: signatureOf("gpt-fixture"),
    };
    const setup = sqliteThreadStore(join(f.workspace, "..", "threads.db"));
    await setup.create({
      id: "legacy-thread",
      driver: "codex",
      fingerprint: signatureOf(parts),
      fingerprintParts: parts,
      workspace: f.workspace,
      metadata: {},
      providerSessionId: "thr_from_before",
      checkpoint: { turns: 1, lastStatus: "completed" },
    });
    await setup.close();

    for (const [key, token, port] of [[KEY_1, TOKEN_1, 4101], [KEY_2, TOKEN_2, 5202]] as const) {
      const b = f.open(f.config(key, token, port, f.moved));
      try {
        const thread = await b.agent.resumeThread("legacy-thread");
        await thread.run("continue");
      } finally {
        await b.agent.close();
        await b.store.close();
      }
    }
    expect(requests(f.log(), "thread/resume").map((r) => r.params?.threadId)).toEqual(["thr_from_before", "thr_from_before"]);

    // Its digests still refuse what they can tell: here, another workspace.
    const elsewhere = join(f.workspace, "..", "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const store = sqliteThreadStore(join(f.workspace, "..", "threads.db"));
    const agent = createAgent(codex(f.config(KEY_2, TOKEN_2, 5202, f.moved)), { workspace: elsewhere, threadStore: store });
    try {
      await expect(agent.resumeThread("legacy-thread")).rejects.toMatchObject({
        code: "thread_incompatible",
        mismatches: [{ dimension: "workspace", recorded: "(a digest recorded by an earlier version)", current: elsewhere }],
      });
    } finally {
      await agent.close();
      await store.close();
    }
  });
});
