/**
 * An API key given in a driver's env never leaves the host unredacted, even when the provider
 * echoes it: not in events, errors, the thread store and session store on disk, the host's
 * console (a provider answering a request id the host never sent, with the key as the id), nor in
 * any response of the attach server (session views, the event stream, history, inspection).
 */
import { spawn } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

import { createAgent, createSession, sqliteSessionStore, sqliteThreadStore, type AgentEvent } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { createAttachServer } from "../../src/server/index.js";
import { installFakeCli } from "../drivers/fake-cli/install.js";
import { logOf, until } from "../session/harness.js";
import { scratch, writeStdoutTap } from "./helpers.js";

const CANARY = "sk-scenario-canary-3e9b51d07c2a48f6";
/** A key of no recognisable shape: only its value, registered from the driver's env, redacts it. */
const PLAIN_KEY = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FAKE_CODEX = fileURLToPath(new URL("../drivers/codex/fixtures/fake-codex.mjs", import.meta.url));
const FAKE_ACP = fileURLToPath(new URL("../drivers/acp/fixtures/fake-agent.mjs", import.meta.url));

const { root, dir } = scratch("aa-scenario-secrets-");

/** Every file under `path`, as bytes decoded loosely: stores write JSON text and SQLite pages. */
function everythingUnder(path: string): string {
  let all = "";
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) all += readFileSync(join(entry.parentPath, entry.name), "latin1");
  }
  return all;
}

/** The fake app-server as an executable, as the real `codex` is. */
const CODEX = (() => {
  const path = join(root, "codex");
  writeFileSync(path, `#!/bin/sh\nexec '${process.execPath}' '${FAKE_CODEX}' "$@"\n`);
  chmodSync(path, 0o755);
  return path;
})();

const codexWithKey = (home: string) => codex({ executable: CODEX, home, env: { SCENARIO_API_KEY: CANARY, FAKE_CODEX_ECHO_ENV: "SCENARIO_API_KEY" } });

describe("a key given in a driver's env", () => {
  it("is in no event, error, stored thread or session record when the provider echoes it", async () => {
    const state = dir();
    const db = join(state, "state.db");
    const threadStore = sqliteThreadStore(db);
    const store = sqliteSessionStore({ path: db });
    const agent = createAgent(codexWithKey(dir()), { workspace: dir(), threadStore });
    const events: AgentEvent[] = [];
    let error: unknown;
    try {
      const thread = await agent.startThread({ id: "t-secret" });
      const stream = thread.stream("ECHO_KEY please");
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      const everything = JSON.stringify(events) + JSON.stringify(result) + JSON.stringify(result.raw()) + JSON.stringify(result.transcript()) + JSON.stringify(await thread.history()) + JSON.stringify(await thread.info());
      expect(everything).not.toContain(CANARY);
      // The provider did echo it: its warning reached the events, redacted.
      expect(JSON.stringify(events)).toContain("[REDACTED]");
      // A failing run on the same key: the error, its cause and its partial output.
      try {
        await agent.run("LEAK now");
      } catch (err) {
        error = err;
      }
      expect(error).toBeDefined();
      const failure = error as Error & { cause?: unknown; partial?: unknown };
      expect(String(failure) + JSON.stringify(failure) + (failure.stack ?? "") + String(failure.cause) + JSON.stringify(failure.partial)).not.toContain(CANARY);

      const session = await createSession(agent, { id: "s-secret", store });
      await session.submit("ECHO_KEY again");
      await until(async () => session.state() === "idle" && (await logOf(session)).some((entry) => entry.event.type === "run.completed"));
      expect(JSON.stringify(await logOf(session)) + JSON.stringify(session.status())).not.toContain(CANARY);
      await session.close();
    } finally {
      await agent.close();
      await store.close();
      await threadStore.close();
    }
    expect(everythingUnder(state)).not.toContain(CANARY);
  }, 60_000);

  it("is not cut in half by the excerpt of a line that is not JSON: no part of it shows", async () => {
    const folder = dir();
    const wrapper = join(folder, "codex");
    // A line that is not JSON with the key across the excerpt's end (its first 120 characters).
    writeStdoutTap(
      wrapper,
      [process.execPath, FAKE_CODEX],
      `writeSync(1, line);
if (!fired && line.includes('"turn/started"')) { fired = true; writeSync(1, "y".repeat(103) + " " + process.env.SCENARIO_API_KEY + " and more\\n"); }`,
    );
    const agent = createAgent(codex({ executable: wrapper, home: dir(), env: { SCENARIO_API_KEY: PLAIN_KEY } }), { workspace: dir() });
    const events: AgentEvent[] = [];
    try {
      for await (const event of agent.stream("say hello")) events.push(event);
    } finally {
      await agent.close();
    }
    const text = JSON.stringify(events);
    expect(events.at(-1)?.type).toBe("run.completed");
    expect(events.some((event) => event.type === "notice" && event.message.includes("yyyy"))).toBe(true);
    // Not even the key's first 16 characters, which a cut at the excerpt's end would leave.
    expect(text).not.toContain(PLAIN_KEY.slice(0, 16));
  }, 60_000);

  it("is not cut in half where a long tool output is clipped: no part of it shows", async () => {
    const cli = await installFakeCli("claude");
    try {
      const folder = dir();
      const wrapper = join(folder, "claude");
      // The command's output ends its first 32,000 characters 16 characters into the key.
      writeStdoutTap(
        wrapper,
        [cli.executable],
        `if (line.includes('"tool_result"')) {
  const message = JSON.parse(line);
  message.message.content[0].content = "y".repeat(31983) + " " + process.env.SCENARIO_API_KEY + " and more";
  line = JSON.stringify(message) + "\\n";
}
writeSync(1, line);`,
      );
      const agent = createAgent(claude({ executable: wrapper, configDir: cli.configDir, env: { ANTHROPIC_API_KEY: "sk-fake-clip-key-0123456789", SCENARIO_API_KEY: PLAIN_KEY } }), {
        workspace: cli.workspace,
        defaults: { onApproval: async () => ({ decision: "allow" as const }) },
      });
      const events: AgentEvent[] = [];
      try {
        for await (const event of agent.stream("[[bash]] run it")) events.push(event);
      } finally {
        await agent.close();
      }
      expect(events.at(-1)?.type).toBe("run.completed");
      const completed = events.find((event) => event.type === "tool.completed");
      expect(completed).toMatchObject({ output: expect.stringContaining("yyyy") });
      expect(JSON.stringify(events)).not.toContain(PLAIN_KEY.slice(0, 16));
    } finally {
      await cli.cleanup();
    }
  }, 60_000);

  it("does not reach the host's console through a provider answering a request never sent, with the key as its id", async () => {
    const folder = dir();
    const wrapper = join(folder, "fake-acp-agent");
    writeStdoutTap(
      wrapper,
      [process.execPath, FAKE_ACP],
      `writeSync(1, line);
if (!fired && line.includes('"agent_message_chunk"')) { fired = true; writeSync(1, JSON.stringify({ jsonrpc: "2.0", id: process.env.SCENARIO_API_KEY, result: {} }) + "\\n"); writeSync(1, JSON.stringify({ jsonrpc: "2.0", id: 9999, error: { code: -1, message: "key " + process.env.SCENARIO_API_KEY } }) + "\\n"); }`,
    );
    const host = join(folder, "host.ts");
    writeFileSync(
      host,
      `
import { createAgent } from ${JSON.stringify(join(REPO, "src/index.js"))};
import { acp } from ${JSON.stringify(join(REPO, "src/drivers/acp/index.js"))};
const agent = createAgent(acp({ command: ${JSON.stringify(wrapper)}, env: { SCENARIO_API_KEY: ${JSON.stringify(CANARY)} } }), { workspace: ${JSON.stringify(folder)} });
for await (const event of agent.stream("say hello")) process.stdout.write(JSON.stringify(event) + "\\n");
await agent.close();
`,
    );
    const child = spawn(join(REPO, "node_modules/.bin/jiti"), [host], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('"type":"run.completed"');
    expect(stdout + stderr).not.toContain(CANARY);
    // Nothing on the console at all: the frames are the driver's to report, as notices.
    expect(stderr).toBe("");
  }, 60_000);

  it("is in no response of the attach server: agents, inspection, sessions, their events, threads and history", async () => {
    const stateDir = join(dir(), "state");
    const workspace = dir();
    const logs: string[] = [];
    const server = await createAttachServer({
      config: { agents: { c: { driver: "codex", workspace, options: { executable: CODEX, home: dir(), env: { SCENARIO_API_KEY: CANARY, FAKE_CODEX_ECHO_ENV: "SCENARIO_API_KEY" } } } } },
      port: 0,
      stateDir,
      log: (line) => logs.push(line),
    });
    const { url } = await server.listen();
    const api = async (path: string, body?: unknown): Promise<{ status: number; text: string }> => {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, text: await response.text() };
    };
    const seen: string[] = [];
    try {
      const created = await api("/api/sessions", { agent: "c" });
      expect(created.status).toBe(201);
      const { id } = JSON.parse(created.text) as { id: string };
      seen.push(created.text);
      seen.push((await api(`/api/sessions/${id}/submit`, { text: "ECHO_KEY" })).text);
      seen.push((await api(`/api/sessions/${id}/submit`, { text: "LEAK" })).text);
      const controller = new AbortController();
      const response = await fetch(`${url}/api/sessions/${id}/events`, { headers: { authorization: `Bearer ${server.token}` }, signal: controller.signal });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let stream = "";
      while ((stream.match(/"type":"run\.(completed|failed)"/g) ?? []).length < 2) {
        const { value, done } = await reader.read();
        if (done) break;
        stream += value;
      }
      controller.abort();
      seen.push(stream);
      for (const path of ["/api/agents", "/api/agents/c/inspection", "/api/sessions", `/api/sessions/${id}`, `/api/sessions/${id}/queue`, `/api/sessions/${id}/pending`, `/api/sessions/${id}/inspection`, "/api/threads"]) {
        const got = await api(path);
        seen.push(got.text);
      }
      const threads = JSON.parse(seen.at(-1)!) as { threads: { id: string }[] };
      for (const thread of threads.threads) {
        seen.push((await api(`/api/threads/${encodeURIComponent(thread.id)}`)).text);
        seen.push((await api(`/api/threads/${encodeURIComponent(thread.id)}/history`)).text);
      }
      expect(stream).toContain("run.completed");
      expect(stream).toContain("[REDACTED]");
      expect(stream).toContain("run.failed");
    } finally {
      await server.close();
    }
    expect(seen.join("\n")).not.toContain(CANARY);
    expect(logs.join("\n")).not.toContain(CANARY);
    expect(everythingUnder(stateDir)).not.toContain(CANARY);
  }, 60_000);
});
