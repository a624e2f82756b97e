/**
 * Inspection is read-only: no driver's `inspect()` starts an MCP server, neither one the agent
 * declares (`createAgent({ mcp })`) nor one in the provider's own config. The server used here
 * only appends to a marker file when started and never answers, as a broken server would.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../src/agent/agent.js";
import type { McpServerConfig } from "../../src/driver/vocabulary.js";
import type { Driver } from "../../src/driver/types.js";
import { claudeAcp, codexAcp, copilot, gemini, type AcpDriver } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { tomlValue } from "../../src/drivers/codex/config.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliName } from "../../src/testing/real-cli/index.js";
import { writeFakeCodex } from "../drivers/codex/harness.js";
import { laneEnv } from "../drivers/real-lane.js";
import { describeRealCli } from "../real-cli/helpers.js";

const MARKER_SERVER = fileURLToPath(new URL("./fixtures/marker-mcp-server.mjs", import.meta.url));

type StdioServer = Extract<McpServerConfig, { command: string }>;

/** A stdio MCP server that leaves `marker` behind when anything starts it. */
const markerServer = (name: string, marker: string): StdioServer & { args: string[] } => ({ name, command: process.execPath, args: [MARKER_SERVER, marker] });

async function starts(marker: string): Promise<string[]> {
  return existsSync(marker) ? (await readFile(marker, "utf8")).split("\n").filter(Boolean) : [];
}

/** Inspects with the marker server declared by the agent; returns the inspection and the server's starts. */
async function inspectWithMarker(driver: Driver, workspace: string, marker: string) {
  // A driver delivering no stdio MCP server refuses one at createAgent (test/resources/support.test.ts); its user's servers are still checked.
  const mcp = driver.descriptor().resources.mcp.stdio ? [markerServer("agent_marker", marker)] : [];
  const agent = createAgent(driver, { workspace, mcp });
  try {
    const inspection = await agent.inspect();
    return { inspection, agent };
  } finally {
    // Closing reaps every process the driver started; a server it started has written by then.
    await agent.close();
  }
}

describe("codex inspect() starts no MCP server (fake app-server that starts them on mcpServerStatus/list)", () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  it("reports the agent's MCP server as configured, from config/read, without starting it", async () => {
    const root = await mkdtemp(join(tmpdir(), "aa-inspect-mcp-"));
    roots.push(root);
    const workspace = join(root, "workspace");
    await mkdir(workspace);
    const marker = join(root, "marker.log");
    const driver = codex({ executable: writeFakeCodex(root), home: join(root, "home") });
    const { inspection } = await inspectWithMarker(driver, workspace, marker);
    expect(await starts(marker)).toEqual([]);
    expect(inspection.mcp).toMatchObject({ status: "observed", value: { servers: [{ name: "agent_marker", status: "configured" }] } });
    expect(inspection.mcp.evidence.map((e) => e.method)).toEqual(["config/read"]);
    expect(JSON.stringify(inspection.mcp)).not.toContain(MARKER_SERVER);
  });
});

describeRealCli("codex", () => {
  it("inspect() starts neither the agent's MCP server nor one from the user's config.toml, and lists both as configured", async () => {
    await withRealCli("codex", { turns: [] }, async (ctx) => {
      const marker = join(ctx.root, "marker.log");
      const user = markerServer("user_marker", marker);
      await appendFile(join(ctx.configDir, "config.toml"), `\n[mcp_servers.user_marker]\ncommand = ${tomlValue(user.command)}\nargs = ${tomlValue(user.args)}\n`);
      const driver = codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      });
      const { inspection } = await inspectWithMarker(driver, ctx.workspace, marker);
      expect(await starts(marker)).toEqual([]);
      expect(inspection.mcp.status).toBe("observed");
      expect(inspection.mcp.value!.servers).toEqual([
        { name: "agent_marker", status: "configured" },
        { name: "user_marker", status: "configured" },
      ]);
    });
  });
});

/** Stream-json CLIs: the user's own MCP config lives in `<config dir>/.claude.json`-style files and the workspace's `.mcp.json`. */
for (const cli of ["claude", "codebuddy"] as const) {
  describeRealCli(cli, () => {
    it("inspect() starts neither the agent's MCP server nor one from the user's or the workspace's MCP config", async () => {
      await withRealCli(cli, { turns: [] }, async (ctx) => {
        const marker = join(ctx.root, "marker.log");
        const user = markerServer("user_marker", marker);
        const entry = { mcpServers: { user_marker: { type: "stdio", command: user.command, args: user.args } } };
        await writeFile(join(ctx.configDir, cli === "claude" ? ".claude.json" : ".codebuddy.json"), JSON.stringify(entry));
        await writeFile(join(ctx.home, cli === "claude" ? ".claude.json" : ".codebuddy.json"), JSON.stringify(entry));
        await writeFile(join(ctx.workspace, ".mcp.json"), JSON.stringify(entry));
        // The provider binding replaces the lane's models.json.
        if (cli === "codebuddy") await rm(join(ctx.configDir, "models.json"), { force: true });
        const keyEnv = `${cli.toUpperCase()}_LANE_KEY`;
        const base = {
          executable: ctx.executable,
          configDir: ctx.configDir,
          model: ctx.model,
          // The CLI's default setting sources: the user's and the project's MCP config apply.
          env: {
            ...laneEnv(ctx, cli === "claude" ? ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"] : ["CODEBUDDY_BASE_URL", "CODEBUDDY_API_KEY"]),
            [keyEnv]: "sk-lane-key-0123456789",
          },
        };
        const driver =
          cli === "claude"
            ? claude({ ...base, provider: { baseUrl: ctx.server.url, apiKeyEnv: keyEnv } })
            : codebuddy({ ...base, executable: ctx.entry, provider: { baseUrl: ctx.server.url, apiKeyEnv: keyEnv } });
        const { inspection } = await inspectWithMarker(driver, ctx.workspace, marker);
        expect(await starts(marker)).toEqual([]);
        expect(inspection.environment.status).toBe("observed");
      });
    });
  });
}

interface AcpCase {
  cli: RealCliName;
  driver(ctx: RealCliContext): AcpDriver;
  /** Writes an MCP server into the agent's own user settings, where it has such settings. */
  userConfig?(ctx: RealCliContext, server: StdioServer & { args: string[] }): Promise<void>;
}

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");
const acpCases: AcpCase[] = [
  {
    cli: "gemini",
    driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    userConfig: async (ctx, server) => {
      const file = join(ctx.home, ".gemini", "settings.json");
      const settings = existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>) : {};
      await mkdir(join(ctx.home, ".gemini"), { recursive: true });
      await writeFile(file, JSON.stringify({ ...settings, mcpServers: { user_marker: { command: server.command, args: server.args } } }));
    },
  },
  { cli: "codex-acp", driver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }) },
  { cli: "claude-agent-acp", driver: (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }) },
  { cli: "copilot", driver: (ctx) => copilot({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "COPILOT_PROVIDER_API_KEY", model: ctx.model }, env: ctx.env }) },
];

for (const c of acpCases) {
  describeRealCli(c.cli, () => {
    it("inspect() (initialize only) starts no MCP server", async () => {
      await withRealCli(c.cli, { turns: [] }, async (ctx) => {
        const marker = join(ctx.root, "marker.log");
        const user = markerServer("user_marker", marker);
        await c.userConfig?.(ctx, user);
        const { inspection } = await inspectWithMarker(c.driver(ctx), ctx.workspace, marker);
        expect(await starts(marker)).toEqual([]);
        expect(inspection.environment.status).toBe("observed");
      });
    });
  });
}
