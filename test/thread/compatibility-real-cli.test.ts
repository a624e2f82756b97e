/**
 * Thread compatibility on the real `codex app-server` and Claude Code (issue #15 item 6): a thread stored in
 * SQLite by an agent on scripted model server A (key 1, header token 1) resumes under an agent on
 * server B — another port — with key 2 and header token 2, and server B receives the first turn's
 * history, so the provider session really continued. A changed model default is refused naming
 * the setting and both values. Canary secrets appear in no event, record, database or error.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent, sqliteThreadStore, ThreadIncompatibleError } from "../../src/index.js";
import { codex, type CodexConfig } from "../../src/drivers/codex/index.js";
import { claude, type ClaudeConfig } from "../../src/drivers/claude/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { startModelServer, type CapturedRequest, type ModelScript } from "../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "../real-cli/helpers.js";
import { laneEnv } from "../drivers/real-lane.js";

const KEY_1 = "canary-rotated-key-one-3b9e1f";
const KEY_2 = "canary-rotated-key-two-8a07c4";
const TOKEN_1 = "canary-header-token-one-d51a";
const TOKEN_2 = "canary-header-token-two-6ce2";
const CANARIES = [KEY_1, KEY_2, TOKEN_1, TOKEN_2];

const FIRST: ModelScript = { turns: [{ match: { lastUserTextContains: "remember" }, reply: { text: "Noted: the word is heliotrope." } }] };
const SECOND: ModelScript = { turns: [{ match: { lastUserTextContains: "Which word" }, reply: { text: "It was heliotrope." } }] };

/** The driver on `baseUrl` with `key` and `token`: only those (and the model) vary between agents. */
function config(ctx: RealCliContext, baseUrl: string, key: string, token: string, model = ctx.model): CodexConfig {
  return {
    home: ctx.configDir,
    model,
    env: { ...ctx.env, [SCRIPTED_KEY_ENV]: key },
    provider: {
      id: "scripted_driver",
      baseUrl: `${baseUrl}/v1`,
      wireApi: "responses",
      apiKeyEnv: SCRIPTED_KEY_ENV,
      headers: { "x-gateway-token": token, "x-tenant": "tenant-42" },
      requestMaxRetries: 0,
      streamMaxRetries: 0,
    },
    args: ["--disable", "plugins"],
  };
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const modelRequests = (requests: readonly CapturedRequest[], dialect = "responses") => requests.filter((r) => r.dialect === dialect && !r.auxiliary);
const texts = (request: CapturedRequest) => request.messages.flatMap((m) => m.parts).map((p) => (p.type === "text" ? p.text : "")).join("\n");

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

describeRealCli("codex", () => {
  it("a stored SQLite thread resumes after a key and header-token rotation and a move to another server port", async () => {
    await withRealCli("codex", FIRST, async (ctx) => {
      const serverB = await startModelServer({ script: SECOND });
      const database = join(ctx.root, "threads.db");
      const events: AgentEvent[] = [];
      try {
        expect(serverB.url).not.toBe(ctx.server.url);
        let id: string;
        {
          const store = sqliteThreadStore(database);
          const agent = createAgent(codex(config(ctx, ctx.server.url, KEY_1, TOKEN_1)), { workspace: ctx.workspace, threadStore: store });
          try {
            const thread = await agent.startThread();
            id = thread.id;
            events.push(...(await collect(thread.stream("Please remember the word heliotrope."))));
          } finally {
            await agent.close();
            await store.close();
          }
        }
        expect(modelRequests(ctx.server.requests)).toHaveLength(1);

        const store = sqliteThreadStore(database);
        const agent = createAgent(codex(config(ctx, serverB.url, KEY_2, TOKEN_2)), { workspace: ctx.workspace, threadStore: store });
        try {
          const thread = await agent.resumeThread(id);
          const second = await collect(thread.stream("Which word did I ask you to remember?"));
          events.push(...second);
          expect(second.at(-1)).toMatchObject({ type: "run.completed" });
          const result = second.at(-1) as Extract<AgentEvent, { type: "run.completed" }>;
          expect(JSON.stringify(result)).toContain("It was heliotrope.");
          // Server B got the request, with the first turn's exchange in it: the session continued.
          const onB = modelRequests(serverB.requests);
          expect(onB).toHaveLength(1);
          // Header values reach Codex through its environment (never its command line) and are sent.
          expect(onB[0]!.headers).toMatchObject({ "x-tenant": "tenant-42", "x-gateway-token": expect.any(String) });
          expect(texts(onB[0]!)).toContain("Please remember the word heliotrope.");
          expect(texts(onB[0]!)).toContain("Noted: the word is heliotrope.");
          expect(modelRequests(ctx.server.requests)).toHaveLength(1);
          const record = await thread.info();
          expect(record.checkpoint.turns).toBe(2);
          expectNoCanary(JSON.stringify(record));
          expect(JSON.stringify(record.fingerprintParts)).not.toContain(new URL(serverB.url).port);

          // A real incompatibility: another model default, named with both values, before any spawn.
          const other = createAgent(codex(config(ctx, serverB.url, KEY_2, TOKEN_2, "another-model")), { workspace: ctx.workspace, threadStore: store });
          try {
            const error = await other.resumeThread(id).catch((e: unknown) => e);
            expect(error).toBeInstanceOf(ThreadIncompatibleError);
            expect((error as ThreadIncompatibleError).mismatches).toEqual([
              { dimension: "model", setting: "the codex driver config's default model", recorded: ctx.model, current: "another-model" },
            ]);
            expectNoCanary(`${(error as Error).message} ${JSON.stringify(error)}`);
          } finally {
            await other.close();
          }
        } finally {
          await agent.close();
          await store.close();
        }
        expectNoCanary(JSON.stringify(events));
        expectNoCanary([database, `${database}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1")).join("\n"));
      } finally {
        await serverB.close();
      }
    });
  });
});

/** Claude Code on `baseUrl` with the key in `key`: the key variable and the endpoint vary between agents. */
function claudeConfig(ctx: RealCliContext, baseUrl: string, key: string): ClaudeConfig {
  return {
    executable: ctx.executable,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl, apiKeyEnv: "CLAUDE_ROTATED_KEY" },
    env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), CLAUDE_ROTATED_KEY: key },
  };
}

describeRealCli("claude", () => {
  it("a stored SQLite thread resumes after a key rotation and a move to another server port", async () => {
    await withRealCli("claude", FIRST, async (ctx) => {
      const serverB = await startModelServer({ script: SECOND });
      const database = join(ctx.root, "threads.db");
      const events: AgentEvent[] = [];
      try {
        let id: string;
        {
          const store = sqliteThreadStore(database);
          const agent = createAgent(claude(claudeConfig(ctx, ctx.server.url, KEY_1)), { workspace: ctx.workspace, threadStore: store });
          try {
            const thread = await agent.startThread();
            id = thread.id;
            events.push(...(await collect(thread.stream("Please remember the word heliotrope."))));
          } finally {
            await agent.close();
            await store.close();
          }
        }
        const store = sqliteThreadStore(database);
        const agent = createAgent(claude(claudeConfig(ctx, serverB.url, KEY_2)), { workspace: ctx.workspace, threadStore: store });
        try {
          const thread = await agent.resumeThread(id);
          const second = await collect(thread.stream("Which word did I ask you to remember?"));
          events.push(...second);
          expect(second.at(-1)).toMatchObject({ type: "run.completed" });
          const onB = modelRequests(serverB.requests, "anthropic");
          expect(onB).toHaveLength(1);
          expect(texts(onB[0]!)).toContain("Please remember the word heliotrope.");
          expect(texts(onB[0]!)).toContain("Noted: the word is heliotrope.");
          const record = await thread.info();
          expect(record.checkpoint.turns).toBe(2);
          expectNoCanary(JSON.stringify(record));
        } finally {
          await agent.close();
          await store.close();
        }
        expectNoCanary(JSON.stringify(events));
        expectNoCanary([database, `${database}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1")).join("\n"));
      } finally {
        await serverB.close();
      }
    });
  });
});
