/** The stream-json lanes' drivers against the scripted model server, and how their model calls an MCP tool. */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { claude } from "../../../src/drivers/claude/index.js";
import { codebuddy } from "../../../src/drivers/codebuddy/index.js";
import type { StreamJsonDriver } from "../../../src/drivers/stream-json/driver.js";
import type { RealCliContext } from "../../../src/testing/real-cli/index.js";
import { laneEnv } from "../real-lane.js";

const LANE_KEY = "resources-lane-key-0123456789";

export async function streamJsonLaneDriver(cli: "claude" | "codebuddy", ctx: RealCliContext, extra: { executable?: string } = {}): Promise<StreamJsonDriver> {
  if (cli === "claude") {
    return claude({
      executable: extra.executable ?? ctx.executable,
      configDir: ctx.configDir,
      model: ctx.model,
      settingSources: [],
      provider: { baseUrl: ctx.server.url, apiKeyEnv: "RESOURCES_LANE_KEY" },
      env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), RESOURCES_LANE_KEY: LANE_KEY },
    });
  }
  await rm(join(ctx.configDir, "models.json"), { force: true });
  return codebuddy({
    executable: extra.executable ?? ctx.entry,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl: ctx.server.url, apiKeyEnv: "RESOURCES_LANE_KEY" },
    env: { ...laneEnv(ctx, []), RESOURCES_LANE_KEY: LANE_KEY },
  });
}

/**
 * How the model calls an MCP tool. CodeBuddy connects MCP servers in the background and keeps
 * their tools out of the turn's tool list: its model waits for the server with `WaitForMcpServers`
 * and calls the tool through `DeferExecuteTool`, which the driver reports as the MCP call it is.
 */
export function mcpCall(cli: "claude" | "codebuddy", id: string, name: string, args: Record<string, unknown>) {
  return cli === "codebuddy" ? { id, name: "DeferExecuteTool", arguments: { toolName: name, params: args } } : { id, name, arguments: args };
}
