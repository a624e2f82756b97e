/**
 * The server's configuration and stores: JSON and TOML files with the same keys, a misspelt key
 * refused with the key named (the file's own keys and a driver's options alike), a missing file a
 * `config_invalid` ConfigError; the default SQLite store surviving a restart on the same state
 * directory; PostgreSQL by URL (AGENT_ADAPTOR_TEST_PG_URL; required in CI).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAttachServer, loadServerConfig, parseServerConfig, type ServerConfig } from "../../../src/server/index.js";
import { dropSchemas, PG_MISSING, PG_REQUIRED, PG_URL, uniqueSchema } from "../../thread/helpers.js";
import { FAKE_SCRIPTS, fakeConfig, startServer, tempDir } from "./helpers.js";

const root = tempDir("aa-server-config-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, "ws");
mkdirSync(workspace);

function file(name: string, text: string): string {
  const path = join(root, name);
  writeFileSync(path, text);
  return path;
}

describe("config files", () => {
  it("reads JSON and TOML with the same keys, resolving relative paths against the file's folder", async () => {
    const fromJson = await loadServerConfig(
      file(
        "serve.json",
        JSON.stringify({
          server: { host: "127.0.0.1", port: 7999, maxBodyBytes: 2048, cors: { origins: ["http://localhost:5173"] } },
          store: { sqlite: "./state.db" },
          agents: { reviewer: { driver: "fake", workspace: "./ws", options: { scripts: FAKE_SCRIPTS }, defaults: { model: "m" } } },
        }),
      ),
    );
    const fromToml = await loadServerConfig(
      file(
        "serve.toml",
        [
          "[server]",
          'host = "127.0.0.1"',
          "port = 7999",
          "maxBodyBytes = 2048",
          'cors = { origins = ["http://localhost:5173"] }',
          "[store]",
          'sqlite = "./state.db"',
          "[agents.reviewer]",
          'driver = "fake"',
          'workspace = "./ws"',
          "[agents.reviewer.defaults]",
          'model = "m"',
          "[[agents.reviewer.options.scripts]]",
          'promptContains = "approve"',
          "[agents.reviewer.options.scripts.script]",
          "steps = [{ markDelivered = true }]",
        ].join("\n"),
      ),
    );
    for (const config of [fromJson, fromToml]) {
      expect(config.server).toEqual({ host: "127.0.0.1", port: 7999, maxBodyBytes: 2048, cors: { origins: ["http://localhost:5173"] } });
      expect(config.store).toEqual({ sqlite: join(root, "state.db") });
      expect(config.agents.reviewer).toMatchObject({ driver: "fake", workspace, defaults: { model: "m" } });
    }
  });

  it("refuses a misspelt key with the key named, in JSON and in TOML", async () => {
    await expect(loadServerConfig(file("typo.json", JSON.stringify({ agents: { a: { driver: "fake", workspace, optoins: {} } } })))).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringContaining('agents.a: unknown key "optoins"'),
    });
    await expect(loadServerConfig(file("typo.toml", '[sever]\nport = 1\n[agents.a]\ndriver = "fake"\nworkspace = "/tmp"\n'))).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringContaining('unknown key "sever"'),
    });
    await expect(loadServerConfig(file("driver.toml", '[agents.a]\ndriver = "codexx"\nworkspace = "/tmp"\n'))).rejects.toMatchObject({
      message: expect.stringContaining("agents.a.driver"),
    });
    expect(() => parseServerConfig({ agents: {} })).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() => parseServerConfig({ agents: { a: { driver: "fake" } } })).toThrow(/agents\.a\.workspace is required/);
    expect(() => parseServerConfig({ agents: { a: { driver: "fake", workspace: "relative" } } })).toThrow(/absolute/);
    expect(() => parseServerConfig({ store: { sqlite: "/a.db", postgres: "postgres://x" }, agents: { a: { driver: "fake", workspace } } })).toThrow(/exactly one/);
  });

  it("a missing file, or one that does not parse, is a ConfigError config_invalid that quotes nothing from it", async () => {
    await expect(loadServerConfig(join(root, "absent.toml"))).rejects.toMatchObject({ name: "ConfigError", code: "config_invalid" });
    const bad = loadServerConfig(file("bad.json", '{ "agents": "secret-value-xyz" '));
    await expect(bad).rejects.toMatchObject({ code: "config_invalid" });
    await expect(bad).rejects.not.toThrow(/secret-value-xyz/);
    const badToml = loadServerConfig(file("bad.toml", 'token = "secret-value-xyz'));
    await expect(badToml).rejects.toThrow(/not valid TOML \(line 1/);
    await expect(badToml).rejects.not.toThrow(/secret-value-xyz/);
  });

  it("passes a driver's options through: the driver refuses a key it does not know", async () => {
    const config = (options: Record<string, unknown>, driver: "codex" | "fake" = "codex"): ServerConfig => ({ agents: { a: { driver, workspace, options } } });
    const stateDir = join(root, "state-options");
    await expect(createAttachServer({ config: config({ modle: "gpt" }), stateDir, port: 0 })).rejects.toMatchObject({ code: "config_invalid", message: expect.stringContaining("modle") });
    await expect(createAttachServer({ config: config({ scirpt: {} }, "fake"), stateDir, port: 0 })).rejects.toMatchObject({ code: "config_invalid", message: expect.stringContaining("scirpt") });
    await expect(createAttachServer({ config: { agents: { a: { driver: "fake", workspace: join(root, "missing-ws") } } }, stateDir, port: 0 })).rejects.toMatchObject({
      code: "config_invalid",
      message: "agents.a.workspace is not an existing directory",
    });
    await expect(createAttachServer({ config: { agents: { a: { driver: "fake", workspace, defaults: { modle: "x" } } } }, stateDir, port: 0 })).rejects.toMatchObject({ code: "config_invalid" });
  });
});

describe("stores", () => {
  it("keeps sessions in SQLite under the state directory: a restart lists them and drives them again", async () => {
    const stateDir = join(root, "state-sqlite");
    const first = await startServer({ stateDir, config: fakeConfig(workspace) });
    const created = (await (await first.api("/api/sessions", { json: { agent: "fake", id: "kept" } })).json()) as { id: string };
    await first.api(`/api/sessions/${created.id}/submit`, { json: { text: "hello" } });
    const seqBefore = await until(first, created.id);
    await first.close();

    const second = await startServer({ stateDir, config: fakeConfig(workspace) });
    try {
      const listed = (await (await second.api("/api/sessions")).json()) as { sessions: { id: string; live: boolean; lastSeq: number }[] };
      expect(listed.sessions).toEqual([expect.objectContaining({ id: "kept", live: false, lastSeq: seqBefore })]);
      const submitted = await second.api("/api/sessions/kept/submit", { json: { text: "again" } });
      expect(submitted.status).toBe(202);
      expect(await until(second, "kept")).toBeGreaterThan(seqBefore);
    } finally {
      await second.close();
    }
  });

  it("after a restart with an approval waiting, nothing stale is pending and a new run's approval is", async () => {
    const stateDir = join(root, "state-pending");
    const first = await startServer({ stateDir, config: fakeConfig(workspace) });
    await first.api("/api/sessions", { json: { agent: "fake", id: "asks" } });
    await first.api("/api/sessions/asks/submit", { json: { text: "approve this" } });
    for (;;) {
      const pending = (await (await first.api("/api/sessions/asks/pending")).json()) as { approvals: unknown[] };
      if (pending.approvals.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await first.close();

    const second = await startServer({ stateDir, config: fakeConfig(workspace) });
    try {
      // Opening replays the log: the request was made, never resolved, and its run was cut by the restart.
      expect(await (await second.api("/api/sessions/asks/pending")).json()).toEqual({ approvals: [], questions: [] });
      expect((await second.api("/api/sessions/asks/approvals/appr_1", { json: { decision: "allow" } })).status).toBe(404);
      await second.api("/api/sessions/asks/submit", { json: { text: "approve again" } });
      for (;;) {
        const pending = (await (await second.api("/api/sessions/asks/pending")).json()) as { approvals: { requestId: string }[] };
        if (pending.approvals.length > 0) {
          expect(pending.approvals.map((a) => a.requestId)).toEqual(["appr_1"]);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await second.api("/api/sessions/asks/approvals/appr_1", { json: { decision: "allow" } })).status).toBe(200);
      await until(second, "asks");
    } finally {
      await second.close();
    }
  });

  if (PG_URL === undefined) {
    if (PG_REQUIRED) {
      it("PostgreSQL store: a PostgreSQL server is required in CI", () => {
        throw new Error(PG_MISSING);
      });
    } else {
      it.skip(`PostgreSQL store (${PG_MISSING})`, () => undefined);
    }
  } else {
    const url = PG_URL;
    const schema = uniqueSchema("aa_serve");
    afterAll(() => dropSchemas(url, [schema]));
    it("keeps sessions in PostgreSQL by URL: a restart lists them", async () => {
      const config = fakeConfig(workspace, { store: { postgres: url, schema } });
      const first = await startServer({ stateDir: join(root, "state-pg-1"), config });
      await first.api("/api/sessions", { json: { agent: "fake", id: "in-postgres" } });
      await first.api("/api/sessions/in-postgres/submit", { json: { text: "hello" } });
      await until(first, "in-postgres");
      await first.close();
      const second = await startServer({ stateDir: join(root, "state-pg-2"), config });
      try {
        const listed = (await (await second.api("/api/sessions")).json()) as { sessions: { id: string }[] };
        expect(listed.sessions.map((v) => v.id)).toEqual(["in-postgres"]);
        const threads = (await (await second.api("/api/threads")).json()) as { threads: { id: string }[] };
        expect(threads.threads.map((t) => t.id)).toContain("in-postgres");
      } finally {
        await second.close();
      }
    });
  }
});

/** Wait until the session is idle after a run; its lastSeq. */
async function until(server: { api(path: string): Promise<Response> }, id: string): Promise<number> {
  for (;;) {
    const view = (await (await server.api(`/api/sessions/${id}`)).json()) as { state: string; lastSeq: number };
    if (view.state === "idle") return view.lastSeq;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
