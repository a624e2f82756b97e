/**
 * Inspection of a remote A2A agent without a prompt: its agent card (environment, skills, and
 * commands when the card tags skills as commands) and one read-only authenticated call
 * (`GetTask` of an id no task has) that proves whether the credentials are accepted. Models,
 * MCP servers, quota, profiles and configuration are not part of A2A.
 */
import type { AgentCard } from "@a2a-js/sdk";
import type { InspectResponse } from "../../../driver/types.js";
import { evidence, evidenceClock } from "../../../driver/kit/evidence.js";
import { allUnavailable, observed, unavailable, unsupported } from "../../../driver/observations.js";
import { ExecutableNotFoundError } from "../../../errors/index.js";
import type { AuthReport, Evidence, NativeCommandInfo, SkillInfo } from "../../../inspect/types.js";
import { loadA2ASdk, type A2ASdk, type A2ASdkImporter } from "../sdk.js";
import { authHeaders, configSecrets, type A2AConfig } from "./config.js";
import { Remote } from "./remote.js";

export const TRANSPORT = "a2a (HTTP)";
const PROBE_TASK_ID = "agent-adaptor-auth-probe";

function skillsOf(card: AgentCard): { skills: SkillInfo[]; commands: NativeCommandInfo[] } {
  const skills: SkillInfo[] = [];
  const commands: NativeCommandInfo[] = [];
  for (const s of card.skills ?? []) {
    if (s.tags?.includes("command")) commands.push({ name: s.name.replace(/^\//, ""), ...(s.description ? { description: s.description } : {}) });
    else skills.push({ name: s.name, ...(s.description ? { description: s.description } : {}), source: "agent card" });
  }
  return { skills, commands };
}

type Probe = { ok: true } | { ok: false; refused: boolean; message: string };

/** One authenticated call: a task lookup the agent answers "not found" once it accepts the caller. */
async function probeAuth(sdk: A2ASdk, remote: Remote, card: AgentCard, signal: AbortSignal): Promise<Probe> {
  try {
    const client = await remote.client(sdk, card);
    await client.getTask({ tenant: "", id: PROBE_TASK_ID, historyLength: undefined }, { signal });
    return { ok: true };
  } catch (error) {
    if (remote.refused !== undefined) return { ok: false, refused: true, message: `the agent refused the credentials (HTTP ${remote.refused})` };
    // Any protocol answer (task not found) proves the call was accepted.
    if (error instanceof Error && /not found/i.test(error.message)) return { ok: true };
    return { ok: false, refused: false, message: "the agent did not answer an authenticated call" };
  }
}

function authPanel(config: A2AConfig, card: AgentCard, probe: Probe, record: Evidence): InspectResponse["auth"] {
  if (!probe.ok) return unavailable(probe.refused ? "auth_required" : "provider_error", probe.message, [record]);
  const configured = Object.keys(authHeaders(config.auth)).length > 0;
  const required = (card.securityRequirements ?? []).length > 0 || Object.keys(card.securitySchemes ?? {}).length > 0;
  const report: AuthReport = configured ? { signedIn: true, method: config.auth?.token !== undefined || config.auth?.tokenEnv !== undefined ? "bearer" : "headers", ...(required ? { required: true } : {}) } : { signedIn: false, required };
  return observed(report, [record]);
}

function cardFailure(remote: Remote, error: unknown): Omit<InspectResponse, "secrets"> {
  if (remote.refused !== undefined) return allUnavailable("auth_required", `the agent refused the credentials for its card (HTTP ${remote.refused})`);
  const message = error instanceof Error ? error.message : String(error);
  if (/fetch failed/i.test(message)) return allUnavailable("provider_error", "the agent could not be reached");
  return allUnavailable("malformed_response", "the agent card could not be read");
}

export async function inspectRemote(config: A2AConfig, importer: A2ASdkImporter | undefined, signal: AbortSignal): Promise<InspectResponse> {
  signal.throwIfAborted();
  let sdk: A2ASdk;
  try {
    sdk = await loadA2ASdk(importer);
  } catch (error) {
    if (error instanceof ExecutableNotFoundError) return allUnavailable("executable_not_found", error.summary);
    throw error;
  }
  const secrets = configSecrets(config);
  const remote = new Remote(config);
  const started = evidenceClock();
  let card: AgentCard;
  try {
    card = await remote.card(sdk);
  } catch (error) {
    return { ...cardFailure(remote, error), secrets };
  }
  const version = card.version || undefined;
  const cardRecord = evidence({ transport: TRANSPORT, method: "GET agent card", scope: "account", startedAt: started, providerVersion: version });
  const probeStarted = evidenceClock();
  const probe = await probeAuth(sdk, remote, card, signal);
  signal.throwIfAborted();
  const probeRecord = evidence({ transport: TRANSPORT, method: "GetTask", scope: "account", startedAt: probeStarted, providerVersion: version });
  const { skills, commands } = skillsOf(card);
  const none = (what: string) => unsupported<never>(`an A2A agent card names no ${what}`, [], "not_applicable");
  const protocolVersion = card.supportedInterfaces?.[0]?.protocolVersion;
  const features = [...(card.capabilities?.streaming ? ["streaming"] : []), ...(card.capabilities?.pushNotifications ? ["push_notifications"] : [])];
  return {
    environment: observed({ agentName: card.name, ...(version !== undefined ? { version } : {}), ...(protocolVersion ? { protocolVersion } : {}), capabilities: { features } }, [cardRecord]),
    models: none("models"),
    commands: commands.length > 0 ? observed(commands, [cardRecord]) : unsupported("the agent card tags no skill as a command", [cardRecord], "not_applicable"),
    skills: observed({ skills }, [cardRecord]),
    mcp: none("MCP servers"),
    quota: none("quota"),
    profile: none("profiles"),
    configuration: none("configuration"),
    auth: authPanel(config, card, probe, probeRecord),
    secrets,
  };
}
