/** Inspection panels both dialects read the same way. */
import type { ConfigurationReport, Evidence, McpReport, NativeCommandInfo, Observation, SkillInfo, SkillSnapshot } from "../../inspect/types.js";
import { AdaptorError } from "../../errors/index.js";
import type { InspectContext } from "./dialect.js";
import { SKILLS_PLUGIN_NAME } from "./process-dir.js";
import { callFailed } from "./inspect.js";
import { observed, unavailable, unsupported } from "../../driver/observations.js";
import { isObject, str, type Json } from "./wire.js";

/** `initialize.commands` → commands. Names lose a leading `/` (CodeBuddy writes one, Claude does not). */
export function commandsPanel(commands: unknown, evidence: Evidence[]): Observation<NativeCommandInfo[]> {
  if (!Array.isArray(commands)) return unavailable("malformed_response", "initialize reported no command list", evidence);
  const value: NativeCommandInfo[] = [];
  for (const entry of commands) {
    if (!isObject(entry)) continue;
    const name = str(entry.name)?.replace(/^\//, "");
    if (!name) continue;
    const command: NativeCommandInfo = { name };
    const description = str(entry.description);
    if (description) command.description = description;
    const hint = str(entry.argumentHint);
    if (hint) command.argumentHint = hint;
    value.push(command);
  }
  return observed(value, evidence);
}

/**
 * The agent's skills as the CLI loaded them: `initialize.commands` lists each skill of the
 * driver's plugin as `<plugin>:<skill>` (description prefixed `(<plugin>) `). Skills from elsewhere
 * (bundled, the user's) are listed as plain commands, indistinguishable, so they are not reported.
 */
export function agentSkillsPanel(commands: unknown, evidence: Evidence[]): Observation<SkillSnapshot> {
  if (!Array.isArray(commands)) return unavailable("malformed_response", "initialize reported no command list", evidence);
  const prefix = `${SKILLS_PLUGIN_NAME}:`;
  const skills: SkillInfo[] = [];
  for (const entry of commands) {
    const name = isObject(entry) ? str(entry.name) : undefined;
    if (!name?.startsWith(prefix)) continue;
    const skill: SkillInfo = { name: name.slice(prefix.length), source: "agent" };
    const description = str((entry as Json).description)?.replace(`(${SKILLS_PLUGIN_NAME}) `, "");
    if (description) skill.description = description;
    skills.push(skill);
  }
  return observed({ skills }, evidence);
}

/** `mcp_status` → MCP servers (unavailable when the process was started without them); a CLI that does not know the request reports the panel unsupported. */
export async function mcpPanel(context: InspectContext): Promise<Observation<McpReport>> {
  if (context.mcpWithheld !== undefined) return unavailable("not_started", context.mcpWithheld);
  const call = await context.clock.measure("mcp_status", () => context.process.request({ subtype: "mcp_status" }, { signal: context.signal, timeoutMs: 30_000 }));
  context.signal.throwIfAborted();
  if ("error" in call) {
    if (AdaptorError.is(call.error) && call.error.code === "control_error" && /unknown|unsupported/i.test(call.error.message)) {
      return unsupported("this CLI does not answer mcp_status", [call.evidence]);
    }
    return callFailed(call.error, call.evidence);
  }
  const servers = Array.isArray(call.value.mcpServers) ? call.value.mcpServers.filter(isObject) : undefined;
  if (!servers) return unavailable("malformed_response", "mcp_status reported no server list", [call.evidence]);
  return observed(
    {
      servers: servers.map((s) => {
        const server: McpReport["servers"][number] = { name: str(s.name) ?? "", status: str(s.status) ?? "unknown" };
        if (Array.isArray(s.tools)) server.tools = s.tools.filter(isObject).map((t) => str(t.name) ?? "").filter(Boolean);
        return server;
      }),
    },
    [call.evidence],
  );
}

/** `initialize.output_style` and `available_output_styles` → configuration. */
export function outputStyles(reply: Json): ConfigurationReport {
  const configuration: ConfigurationReport = {};
  const outputStyle = str(reply.output_style);
  if (outputStyle) configuration.outputStyle = outputStyle;
  if (Array.isArray(reply.available_output_styles)) {
    configuration.availableOutputStyles = reply.available_output_styles.filter((s): s is string => typeof s === "string");
  }
  return configuration;
}

export const NO_SKILLS = "initialize lists no skills (loaded skills show in the Skill tool only)";
export const NO_QUOTA = "the headless protocol reports no quota without a conversation";
export const NO_PROFILE = "the headless protocol has no profile";

export function notLoggedIn<T>(driver: string, evidence: Evidence[]): Observation<T> {
  return unavailable("auth_required", `${driver} is not signed in and has no API key`, evidence);
}

export { unsupported };
