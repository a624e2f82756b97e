/**
 * The wire contract on the real CLIs: one scripted turn — a shell command, a file write, then an
 * answer — through real Codex, Claude Code, Pi and the ACP agents Gemini CLI, codex-acp,
 * claude-agent-acp and Copilot CLI (which writes only). Every
 * recorded event of every driver (the live stream and the transcript) is plain JSON data that
 * survives a JSON round trip, validates against the exact zod schema and against the published
 * JSON Schema (docs/agent-event.schema.json, with ajv as a consumer in another language would),
 * and the reducer folds the run into a completed state with the tool calls in it.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { claudeAcp, codexAcp, copilot, gemini } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import { foldRunEvents } from "../../src/events/reducer.js";
import type { AgentEvent } from "../../src/events/types.js";
import { EVENTS_SCHEMA_VERSION } from "../../src/events/types.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliDirs, type RealCliName, type RealCliScript } from "../../src/testing/real-cli/index.js";
import { assertWireEvents } from "../../src/testing/wire-events.js";
import { laneEnv } from "../drivers/real-lane.js";
import { collectWireEvents, describeRealCli } from "./helpers.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const published = JSON.parse(readFileSync(join(root, "docs/agent-event.schema.json"), "utf8")) as object;
const validatePublished = new Ajv2020({ strict: false }).compile(published);

interface Case {
  cli: RealCliName;
  driver(ctx: RealCliContext): Driver;
  /** The provider's shell tool, when the scenario uses one. */
  shell?: { name: string; arguments: Record<string, unknown> };
  write(dirs: RealCliDirs): { name: string; arguments: Record<string, unknown> };
}

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");
const CODEX_PATCH = { name: "exec_command", arguments: { cmd: "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: wire.txt\n+written on the wire\n*** End Patch\nPATCH" } };

const cases: Case[] = [
  {
    cli: "codex",
    driver: (ctx) =>
      codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      }),
    shell: { name: "exec_command", arguments: { cmd: "echo wire-probe" } },
    write: () => CODEX_PATCH,
  },
  {
    cli: "claude",
    driver: (ctx) =>
      claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: "WIRE_LANE_KEY" },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), WIRE_LANE_KEY: "sk-wire-lane-0123456789" },
      }),
    shell: { name: "Bash", arguments: { command: "echo wire-probe", description: "echo a word" } },
    write: (ctx) => ({ name: "Write", arguments: { file_path: join(ctx.workspace, "wire.txt"), content: "written on the wire\n" } }),
  },
  {
    cli: "gemini",
    driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    shell: { name: "run_shell_command", arguments: { command: "echo wire-probe", description: "echo a word" } },
    write: (ctx) => ({ name: "write_file", arguments: { file_path: join(ctx.workspace, "wire.txt"), content: "written on the wire\n" } }),
  },
  {
    cli: "pi",
    driver: (ctx) =>
      pi({
        executable: ctx.executable,
        args: ctx.executable === process.execPath ? [ctx.entry] : [],
        env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
        provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model },
      }),
    shell: { name: "bash", arguments: { command: "echo wire-probe" } },
    write: () => ({ name: "write", arguments: { path: "wire.txt", content: "written on the wire\n" } }),
  },
  {
    cli: "codex-acp",
    driver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }),
    shell: { name: "exec_command", arguments: { cmd: "echo wire-probe" } },
    write: () => CODEX_PATCH,
  },
  {
    cli: "claude-agent-acp",
    driver: (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }),
    shell: { name: "Bash", arguments: { command: "echo wire-probe", description: "echo a word" } },
    write: (dirs) => ({ name: "Write", arguments: { file_path: join(dirs.workspace, "wire.txt"), content: "written on the wire\n" } }),
  },
  {
    cli: "copilot",
    driver: (ctx) => copilot({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "COPILOT_PROVIDER_API_KEY", model: ctx.model }, env: ctx.env }),
    write: (dirs) => ({ name: "create", arguments: { path: join(dirs.workspace, "wire.txt"), file_text: "written on the wire\n" } }),
  },
];

function script(c: Case, ctx: RealCliDirs): RealCliScript {
  const [shellId, writeId] = c.cli === "claude" ? ["toolu_wire_shell", "toolu_wire_write"] : ["call_wire_shell", "call_wire_write"];
  const write = { toolCalls: [{ id: writeId, ...c.write(ctx) }], usage: { input_tokens: 120, output_tokens: 10 } };
  const first = c.shell === undefined ? [{ match: { lastUserTextContains: "wire turn" }, reply: write }] : [
    { match: { lastUserTextContains: "wire turn" }, reply: { toolCalls: [{ id: shellId, ...c.shell }], usage: { input_tokens: 100, output_tokens: 10 } } },
    { match: { toolResultFor: shellId }, reply: write },
  ];
  return { turns: [...first, { match: { toolResultFor: writeId }, reply: { text: "Wire done.", usage: { input_tokens: 140, output_tokens: 5 } } }] };
}

/** The published JSON Schema's complaints about `events`, paths only. */
function publishedSchemaErrors(events: readonly AgentEvent[]): string[] {
  return events.flatMap((event, index) => {
    const valid: boolean = validatePublished(event as unknown);
    if (valid) return [];
    const why = (validatePublished.errors ?? []).slice(0, 3).map((e) => `${e.instancePath} ${e.message ?? ""}`);
    return [`event ${index} (${event.type}): ${why.join("; ")}`];
  });
}

for (const c of cases) {
  describeRealCli(c.cli, () => {
    it("emits only wire events: JSON round trip, the exact schema and the published JSON Schema", async () => {
      await withRealCli(c.cli, (ctx) => script(c, ctx), async (ctx) => {
        const agent = createAgent(c.driver(ctx), { workspace: ctx.workspace, defaults: { onApproval: async () => ({ decision: "allow" }) } });
        try {
          const stream = agent.stream("wire turn: echo a word, then write a file");
          const events = await collectWireEvents(stream);
          const result = await stream.result;
          expect(events[0]).toMatchObject({ type: "run.started", schemaVersion: EVENTS_SCHEMA_VERSION });
          expect(events.at(-1)).toMatchObject({ type: "run.completed", result: { text: result.text } });
          assertWireEvents(result.transcript());
          expect(publishedSchemaErrors(events)).toEqual([]);
          const state = foldRunEvents(events);
          expect(state.status).toBe("completed");
          expect(state.tools.length).toBeGreaterThanOrEqual(1);
        } finally {
          await agent.close();
        }
      });
    });
  });
}
