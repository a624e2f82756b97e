/**
 * The real CLIs the session lanes drive, each bound to the scripted model server of `ctx`:
 * Claude Code through a key variable of its own, Codex through the Responses dialect with retries
 * off, Pi through the server's Chat Completions dialect by the driver's own provider binding.
 */
import type { Driver } from "../../src/driver/types.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import { SCRIPTED_KEY_ENV, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { laneEnv } from "../drivers/real-lane.js";

const LANE_KEY_ENV = "SESSION_LANE_KEY";
const LANE_KEY = "session-lane-key-0123456789";

export function claudeDriver(ctx: RealCliContext): Driver {
  return claude({
    executable: ctx.executable,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl: ctx.server.url, apiKeyEnv: LANE_KEY_ENV },
    env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), [LANE_KEY_ENV]: LANE_KEY },
  });
}

export function codexDriver(ctx: RealCliContext): Driver {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

export function piDriver(ctx: RealCliContext): Driver {
  return pi({
    executable: ctx.executable,
    args: ctx.executable === process.execPath ? [ctx.entry] : [],
    env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
    provider: { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model },
  });
}
