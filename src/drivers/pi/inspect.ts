/**
 * Inspection over a ready Pi process: `get_state` (configuration), `get_available_models` (models,
 * and whether any provider has credentials) and `get_commands` (extension, prompt and skill
 * commands; the skills panel is its `skill:<name>` entries). Nothing here prompts, so no session
 * file is created, and no MCP server is started: Pi has none of its own, and the agent's are
 * connected by the driver's extension only in a process that serves runs.
 */
import { EvidenceRecorder } from "../../driver/kit/evidence.js";
import type { InspectResponse, ResolvedResources } from "../../driver/types.js";
import { observed, unavailable, unsupported } from "../../driver/observations.js";
import type { ConfigurationReport, Evidence, McpReport, ModelInfo, NativeCommandInfo, Observation, SkillInfo, SkillSnapshot } from "../../inspect/types.js";
import { arr, errorText, isObject, num, str, type Json } from "../../driver/json.js";
import { PI_THINKING_LEVELS } from "./config.js";
import { PiCommandError, type PiConnection } from "./rpc.js";

export const TRANSPORT = "pi --mode rpc (JSONL over stdio)";

/** Pi's `Model` as canonical model info. */
export function modelInfo(model: Json, current: Json | undefined): ModelInfo {
  const id = str(model.id) ?? "";
  const info: ModelInfo = { id };
  if (str(model.name) !== undefined && model.name !== id) info.displayName = str(model.name)!;
  if (str(model.provider) !== undefined) info.description = `provider ${str(model.provider)!}`;
  const input = arr(model.input).filter((m): m is "text" | "image" => m === "text" || m === "image");
  if (input.length > 0) info.inputModalities = input;
  if (num(model.contextWindow) !== undefined) info.contextWindow = num(model.contextWindow)!;
  if (num(model.maxTokens) !== undefined) info.maxOutputTokens = num(model.maxTokens)!;
  if (model.reasoning === true) info.efforts = PI_THINKING_LEVELS.map((level) => ({ id: level }));
  if (current !== undefined && current.id === model.id && current.provider === model.provider) info.isDefault = true;
  return info;
}

/** The models Pi offers (only providers with credentials are listed), or why they could not be read. */
export async function availableModels(connection: PiConnection, signal: AbortSignal): Promise<{ models: Json[] } | { error: unknown }> {
  try {
    const data = await connection.request("get_available_models", {}, signal, "before_delivery");
    if (!isObject(data) || !Array.isArray(data.models)) return { error: new Error("malformed") };
    return { models: data.models.filter(isObject) };
  } catch (error) {
    signal.throwIfAborted();
    return { error };
  }
}

function failed<T>(method: string, error: unknown): Observation<T> {
  if (error instanceof PiCommandError && error.code === "method_unsupported") return unsupported(`pi does not know ${method}`);
  if (error instanceof Error && error.message === "malformed") return unavailable("malformed_response", `pi answered ${method} with something other than the documented shape`);
  return unavailable("provider_error", `${method} failed: ${errorText(error)}`);
}

/** The `commands` and `skills` panels: `get_commands` (what extensions, prompt templates and skills add). */
async function commandPanels(
  connection: PiConnection,
  recorder: EvidenceRecorder,
  signal: AbortSignal,
): Promise<{ commands: Observation<NativeCommandInfo[]>; skills: Observation<SkillSnapshot> }> {
  const call = await recorder.measure("get_commands", () => connection.request("get_commands", {}, signal, "before_delivery"));
  if ("error" in call) {
    signal.throwIfAborted();
    return { commands: failed("get_commands", call.error), skills: failed("get_commands", call.error) };
  }
  const data = call.value;
  if (!isObject(data) || !Array.isArray(data.commands)) {
    const why = "pi answered get_commands with something other than a command list";
    return { commands: unavailable("malformed_response", why), skills: unavailable("malformed_response", why) };
  }
  const entries = data.commands.filter(isObject).filter((c) => str(c.name) !== undefined && c.name !== "");
  const list = entries.map((c) => {
    const info: NativeCommandInfo = { name: str(c.name)! };
    if (str(c.description) !== undefined) info.description = str(c.description)!;
    return info;
  });
  return { commands: observed(list, [call.evidence]), skills: observed({ skills: entries.filter((c) => c.source === "skill").map(skillInfo) }, [call.evidence]) };
}

/** A `skill:<name>` command as a skill; its source is where Pi found it (`path`: given on the command line). */
function skillInfo(command: Json): SkillInfo {
  const info: SkillInfo = { name: str(command.name)!.replace(/^skill:/, ""), enabled: true };
  if (str(command.description) !== undefined) info.description = str(command.description)!;
  if (str(command.location) !== undefined) info.source = str(command.location)!;
  return info;
}

/**
 * Pi has no MCP of its own: the driver's extension connects the agent's servers in a process that
 * serves runs (a standby `prepare()` keeps, which answered `get_state` only once every server was
 * connected: the extension fails Pi's start-up otherwise), never in one `inspect()` starts.
 */
function mcpPanel(resources: ResolvedResources | undefined, connected: Evidence[] | undefined): Observation<McpReport> {
  const names = (resources?.mcp ?? []).map((s) => s.name);
  if (names.length === 0) return unsupported("pi has no MCP of its own (the driver delivers an agent's MCP servers through its extension)");
  if (connected !== undefined) return observed({ servers: names.map((name) => ({ name, status: "connected" })) }, connected);
  return unavailable("not_started", `pi has no MCP of its own: the driver's extension connects ${names.join(", ")} when a run's process starts, and inspect() starts none`);
}

/** Every panel from a ready connection. */
/** `mcpConnected`: the process loaded the driver's extension with the agent's MCP servers (a standby). */
export async function inspectConnection(
  connection: PiConnection,
  executable: string,
  signal: AbortSignal,
  resources?: ResolvedResources,
  mcpConnected = false,
): Promise<InspectResponse> {
  const state = connection.state;
  const current = isObject(state.model) ? state.model : undefined;
  const recorder = new EvidenceRecorder(TRANSPORT);
  const stateEvidence = [recorder.record("get_state", { durationMs: connection.readyMs })];

  const configuration: ConfigurationReport = {};
  if (current !== undefined && str(current.id) !== undefined) configuration.model = str(current.id)!;
  if (current !== undefined && str(current.provider) !== undefined) configuration.modelProvider = str(current.provider)!;
  if (str(state.thinkingLevel) !== undefined) configuration.effort = str(state.thinkingLevel)!;

  // Both questions go out at once: one round trip after the handshake instead of two.
  const [listing, { commands, skills }] = await Promise.all([
    recorder.measure("get_available_models", () => availableModels(connection, signal), "account"),
    commandPanels(connection, recorder, signal),
  ]);
  // availableModels rejects only on cancellation (every other failure is its `error` answer).
  if ("error" in listing) throw listing.error;
  const listed = listing.value;
  let models: Observation<ModelInfo[]>;
  let auth: InspectResponse["auth"];
  if ("error" in listed) {
    models = failed("get_available_models", listed.error);
    auth = failed("get_available_models", listed.error);
  } else {
    const evidence = [listing.evidence];
    if (listed.models.length === 0) {
      models = unavailable("auth_required", "pi lists no model: no provider has credentials configured", evidence);
      auth = unavailable("auth_required", "no provider has credentials configured (pi lists only models whose provider has a key)", evidence);
    } else {
      models = observed(
        listed.models.map((m) => modelInfo(m, current)),
        evidence,
      );
      // Pi lists a model only when its provider has credentials: a listed model proves a key.
      auth = observed({ signedIn: true }, evidence);
    }
  }

  return {
    environment: observed({ executablePath: executable, platform: `${process.platform}-${process.arch}`, agentName: "pi" }, stateEvidence),
    models,
    commands,
    skills,
    mcp: mcpPanel(resources, mcpConnected ? stateEvidence : undefined),
    quota: unsupported("pi has no quota method"),
    profile: unsupported("pi has no profiles"),
    configuration: observed(configuration, stateEvidence),
    auth,
  };
}
