/**
 * Zero-prompt inspection over an initialized connection: `model/list` (every page),
 * `config/read` (configuration, profile and the configured MCP servers), `account/read`,
 * `account/rateLimits/read` and `skills/list`. No method here creates a thread or starts an MCP
 * server. Every answer is read through the generated types with the driver lens (`driver/lens.ts`):
 * a misspelt field fails to compile, unknown fields are ignored, a missing or mistyped field is
 * `undefined`, never a guess.
 */
import { EvidenceRecorder, type Measured } from "../../driver/kit/evidence.js";
import { allUnavailable, observed, unavailable, unsupported } from "../../driver/observations.js";
import type { InspectRequest, InspectResponse } from "../../driver/types.js";
import { AdaptorError } from "../../errors/index.js";
import type {
  AuthReport,
  ConfigurationReport,
  ConfigurationSettings,
  EffortInfo,
  EnvironmentReport,
  Evidence,
  McpReport,
  ModelInfo,
  Observation,
  ProfileSnapshot,
  QuotaReport,
  QuotaWindow,
  SkillSnapshot,
} from "../../inspect/types.js";
import { JsonRpcError } from "../../process/index.js";
import { HOST_TOOLS_SERVER_NAME } from "../../resources/host-tools/server-name.js";
import type { ClientMethod, ClientParams, CodexConnection } from "./connection.js";
import { bool, entries, list, num, open, readFrame, str, type Lenient, type Unchecked } from "../../driver/lens.js";
import type { InitializeResponse } from "./protocol/InitializeResponse.js";
import type { Config } from "./protocol/v2/Config.js";
import type { ConfigReadResponse } from "./protocol/v2/ConfigReadResponse.js";
import type { GetAccountRateLimitsResponse } from "./protocol/v2/GetAccountRateLimitsResponse.js";
import type { GetAccountResponse } from "./protocol/v2/GetAccountResponse.js";
import type { Model } from "./protocol/v2/Model.js";
import type { ModelListResponse } from "./protocol/v2/ModelListResponse.js";
import type { RateLimitSnapshot } from "./protocol/v2/RateLimitSnapshot.js";
import type { RateLimitWindow } from "./protocol/v2/RateLimitWindow.js";
import type { SkillsListResponse } from "./protocol/v2/SkillsListResponse.js";

export const TRANSPORT = "codex app-server";

/** Upper bound on pages followed for one paginated method (a server looping on a cursor must not hang inspect). */
const MAX_PAGES = 50;

type Scope = Evidence["scope"];

/** The settings of one config table (the root, or a profile) the report carries. */
type SettingsTable = Pick<Config, "model" | "model_reasoning_effort" | "model_provider" | "approval_policy" | "sandbox_mode"> & {
  features?: { [name in string]?: boolean } | null;
};

/**
 * The generated `Config` is open-ended (any further key is allowed), so the keys read here that
 * it does not name — the active profile, the profile tables, features, MCP servers — are declared.
 */
type ConfigTable = Config &
  SettingsTable & {
    profile?: string | null;
    profiles?: { [name in string]?: SettingsTable } | null;
    mcp_servers?: { [name in string]?: { enabled?: boolean } } | null;
  };

/** Drops `undefined` members so observations stay minimal. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

/** Whether a JSON-RPC error says the method does not exist in this Codex version. */
function isUnknownMethod(error: unknown): boolean {
  if (!(error instanceof JsonRpcError)) return false;
  if (error.rpcCode === -32601) return true;
  return error.rpcCode === -32600 && /unknown variant|unknown method|requires experimentalApi/i.test(error.message);
}

function isAuthError(error: unknown): boolean {
  return error instanceof JsonRpcError && /auth|log ?in|sign(ed)? ?in|unauthori[sz]ed/i.test(error.message);
}

/** The observation for a failed call. */
function failedObservation<T>(method: string, error: unknown, records: Evidence[]): Observation<T> {
  if (isUnknownMethod(error)) return unsupported(`${method} is not offered by this Codex version`, records);
  if (isAuthError(error)) return unavailable("auth_required", (error as Error).message, records);
  if (AdaptorError.is(error) && error.code === "peer_exited") return unavailable("provider_error", `codex app-server exited during ${method}`, records);
  const message = error instanceof Error ? error.message : String(error);
  return unavailable("provider_error", `${method} failed: ${message}`, records);
}

// ---------------------------------------------------------------------------------------------
// Mappers (exported for tests).

export function mapModel(model: unknown): ModelInfo | undefined {
  const m = readFrame<Model>(model);
  const id = str(m?.model) ?? str(m?.id);
  if (m === undefined || id === undefined) return undefined;
  const efforts: EffortInfo[] | undefined = Array.isArray(m.supportedReasoningEfforts)
    ? list(m.supportedReasoningEfforts)
        .map(open)
        .filter((e) => e !== undefined)
        .map((e) => compact<EffortInfo>({ id: str(e.reasoningEffort) ?? "", description: str(e.description) }))
        .filter((e) => e.id !== "")
    : undefined;
  const modalities = Array.isArray(m.inputModalities)
    ? list(m.inputModalities)
        .map(str)
        .filter((x): x is "text" | "image" | "audio" => x === "text" || x === "image" || x === "audio")
    : undefined;
  return compact<ModelInfo>({
    id,
    displayName: str(m.displayName),
    description: str(m.description),
    hidden: bool(m.hidden),
    isDefault: bool(m.isDefault),
    inputModalities: modalities,
    efforts,
    defaultEffort: str(m.defaultReasoningEffort),
    // Codex's catalogue carries no context window or output limit: unknown stays undefined.
  });
}

function isoFromUnixSeconds(value: unknown): string | undefined {
  const n = num(value);
  return n === undefined ? undefined : new Date(n * 1000).toISOString();
}

function mapWindow(name: string, field: Unchecked<RateLimitWindow | null> | undefined): QuotaWindow | undefined {
  const w = open(field);
  if (w === undefined) return undefined;
  return compact<QuotaWindow>({
    name,
    usedPercent: num(w.usedPercent),
    windowMinutes: num(w.windowDurationMins),
    resetsAt: isoFromUnixSeconds(w.resetsAt),
  });
}

export function mapQuota(answer: unknown): QuotaReport {
  const a = readFrame<GetAccountRateLimitsResponse>(answer) ?? {};
  const windows: QuotaWindow[] = [];
  // Every limit by its id; an older Codex sends the one snapshot only.
  let snapshots: (readonly [string, Unchecked<RateLimitSnapshot | null>])[] = entries(a.rateLimitsByLimitId);
  if (open(a.rateLimitsByLimitId) === undefined && a.rateLimits !== undefined) snapshots = [[str(open(a.rateLimits)?.limitId) ?? "codex", a.rateLimits]];
  let plan: string | undefined;
  for (const [limitId, field] of snapshots) {
    const snapshot = open(field);
    if (snapshot === undefined) continue;
    const label = str(snapshot.limitName) ?? limitId;
    for (const which of ["primary", "secondary"] as const) {
      const w = mapWindow(`${label} ${which}`, snapshot[which]);
      if (w) windows.push(w);
    }
    plan ??= str(snapshot.planType);
  }
  return compact<QuotaReport>({ windows, plan });
}

export function mapAuth(answer: unknown): Observation<AuthReport> | { signedIn: false; required: true } {
  const a = readFrame<GetAccountResponse>(answer) ?? {};
  const account = open(a.account);
  if (account !== undefined) {
    const email = "email" in account ? str(account.email) : undefined;
    const plan = "planType" in account ? str(account.planType) : undefined;
    return observed(compact<AuthReport>({ signedIn: true, method: str(account.type), account: email, plan }), []);
  }
  if (bool(a.requiresOpenaiAuth) === true) return { signedIn: false, required: true };
  return observed<AuthReport>({ signedIn: false }, []);
}

export function mapSkills(answer: unknown): SkillSnapshot {
  const a = readFrame<SkillsListResponse>(answer) ?? {};
  const skills: SkillSnapshot["skills"] = [];
  const seen = new Set<string>();
  for (const entry of list(a.data).map(open)) {
    for (const skill of list(entry?.skills).map(open)) {
      const name = str(skill?.name);
      if (skill === undefined || name === undefined) continue;
      const key = `${name}\u0000${str(skill.scope) ?? ""}`;
      if (seen.has(key)) continue;
      seen.add(key);
      skills.push(compact({ name, description: str(skill.description), source: str(skill.scope), enabled: bool(skill.enabled) }));
    }
  }
  return { skills };
}

/** The settings of one Codex config table (the root, or a profile) the report carries. */
function settingsOf(table: Lenient<SettingsTable>): ConfigurationSettings {
  const features: Record<string, boolean> = {};
  for (const [name, value] of entries(table.features)) {
    const enabled = bool(value);
    if (enabled !== undefined) features[name] = enabled;
  }
  return compact<ConfigurationSettings>({
    model: str(table.model),
    effort: str(table.model_reasoning_effort),
    modelProvider: str(table.model_provider),
    approvalPolicy: str(table.approval_policy),
    sandboxMode: str(table.sandbox_mode),
    features: Object.keys(features).length > 0 ? features : undefined,
  });
}

function configOf(answer: unknown): Lenient<ConfigTable> | undefined {
  return open(readFrame<ConfigReadResponse & { config: ConfigTable }>(answer)?.config);
}

export function mapConfiguration(answer: unknown): { configuration: ConfigurationReport; profile: ProfileSnapshot } {
  const config = configOf(answer) ?? {};
  const profileName = str(config.profile);
  const profileTable = profileName === undefined ? undefined : open(entries(config.profiles).find(([name]) => name === profileName)?.[1]);
  return {
    configuration: settingsOf(config),
    profile: compact<ProfileSnapshot>({ name: profileName, ...(profileTable ? settingsOf(profileTable) : {}) }),
  };
}

/**
 * The MCP servers the effective config declares, by name only (their commands, URLs and
 * environment may hold credentials), with the agent's own servers (`agentServers`), which the
 * driver declares in every thread's config overrides (mcp.ts): Codex's config/read, asked without
 * a thread, cannot state those, and an agent server replaces a configured one of the same name.
 * Listing live status (`mcpServerStatus/list`) would start every server, so inspection reports
 * what is configured and starts none.
 */
export function mapConfiguredMcpServers(answer: unknown, agentServers: readonly string[] = []): McpReport {
  const byName = new Map<string, string>();
  for (const [name, field] of entries(configOf(answer)?.mcp_servers)) {
    const server = open(field);
    if (server !== undefined) byName.set(name, bool(server.enabled) === false ? "disabled" : "configured");
  }
  for (const name of agentServers) byName.set(name, "configured");
  const servers = [...byName].map(([name, status]) => ({ name, status })).sort((a, b) => a.name.localeCompare(b.name));
  return { servers };
}

// ---------------------------------------------------------------------------------------------

/** One inspection's calls: the connection they go over, the recorder of their evidence, the caller's signal. */
interface Calls {
  connection: CodexConnection;
  recorder: EvidenceRecorder;
  signal: AbortSignal;
}

async function paged<M extends "model/list">(
  { connection, recorder, signal }: Calls,
  method: M,
  params: ClientParams<M>,
  scope: Scope,
): Promise<{ pages: unknown[]; records: Evidence[]; error?: unknown }> {
  const pages: unknown[] = [];
  const records: Evidence[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const pageParams = cursor === undefined ? params : ({ ...(params as object), cursor } as ClientParams<M>);
    const call = await recorder.measure(method, () => connection.request<unknown, M>(method, pageParams, signal), scope);
    if ("error" in call) {
      signal.throwIfAborted();
      // A failed page adds no record: the pages read keep theirs.
      return { pages, records, error: call.error };
    }
    records.push(call.evidence);
    const page = call.value;
    pages.push(page);
    const next = str(readFrame<ModelListResponse>(page)?.nextCursor);
    if (next === undefined || next === "" || next === cursor) break;
    cursor = next;
  }
  return { pages, records };
}

/** One call, its answer or its failure recorded; only cancellation rejects. */
async function single<M extends ClientMethod>({ connection, recorder, signal }: Calls, method: M, params: ClientParams<M>, scope: Scope): Promise<Single> {
  const call = await recorder.measure(method, () => connection.request<unknown, M>(method, params, signal), scope);
  if ("error" in call) signal.throwIfAborted();
  return call;
}

type Paged = Awaited<ReturnType<typeof paged>>;
type Single = Measured<unknown>;

/** The environment panel, from the handshake itself (no request of its own). */
function environmentObservation(connection: CodexConnection, recorder: EvidenceRecorder, executablePath: string): Observation<EnvironmentReport> {
  const version = recorder.providerVersion;
  const init = readFrame<InitializeResponse>(connection.initialize);
  const initEvidence = recorder.record("initialize", { durationMs: connection.handshakeMs });
  return observed(
    compact({
      executablePath,
      version,
      protocolVersion: "v2",
      platform: init ? `${str(init.platformFamily)}/${str(init.platformOs)}` : undefined,
      agentName: "codex",
      agentTitle: "Codex app-server",
    }),
    [initEvidence],
  );
}

/** The catalogue over every page read; a failure after the first page keeps the pages read. */
function modelsObservation(models: Paged): Observation<ModelInfo[]> {
  if (models.error !== undefined && models.pages.length === 0) return failedObservation("model/list", models.error, models.records);
  if (models.pages.some((p) => !Array.isArray(readFrame<ModelListResponse>(p)?.data))) {
    return unavailable("malformed_response", "model/list answered without a data list", models.records);
  }
  const catalogue = models.pages.flatMap((p) => list(readFrame<ModelListResponse>(p)?.data).map(mapModel).filter((m): m is ModelInfo => m !== undefined));
  return observed(catalogue, models.records);
}

/** The three panels `config/read` answers: configuration, profile and the configured MCP servers. */
function configObservations(config: Single, agentServers: readonly string[]): {
  configuration: Observation<ConfigurationReport>;
  profile: Observation<ProfileSnapshot>;
  mcp: Observation<McpReport>;
} {
  const records = [config.evidence];
  if ("error" in config) {
    return {
      configuration: failedObservation("config/read", config.error, records),
      profile: failedObservation("config/read", config.error, records),
      mcp: failedObservation("config/read", config.error, records),
    };
  }
  if (configOf(config.value) === undefined) {
    return {
      configuration: unavailable("malformed_response", "config/read answered without a config", records),
      profile: unavailable("malformed_response", "config/read answered without a config", records),
      mcp: unavailable("malformed_response", "config/read answered without a config", records),
    };
  }
  const mapped = mapConfiguration(config.value);
  return {
    configuration: observed(mapped.configuration, records),
    profile: observed(mapped.profile, records),
    mcp: observed(mapConfiguredMcpServers(config.value, agentServers), records),
  };
}

function authObservation(account: Single): Observation<AuthReport> {
  if ("error" in account) return failedObservation("account/read", account.error, [account.evidence]);
  const mapped = mapAuth(account.value);
  return "status" in mapped
    ? { ...mapped, evidence: [account.evidence] }
    : unavailable("auth_required", "Codex is not signed in and its model provider requires an OpenAI account", [account.evidence]);
}

function quotaObservation(limits: Single): Observation<QuotaReport> {
  if ("error" in limits) return failedObservation("account/rateLimits/read", limits.error, [limits.evidence]);
  if (readFrame<GetAccountRateLimitsResponse>(limits.value) === undefined) {
    return unavailable("malformed_response", "account/rateLimits/read answered without a result", [limits.evidence]);
  }
  return observed(mapQuota(limits.value), [limits.evidence]);
}

function skillsObservation(skills: Single): Observation<SkillSnapshot> {
  if ("error" in skills) return failedObservation("skills/list", skills.error, [skills.evidence]);
  if (!Array.isArray(readFrame<SkillsListResponse>(skills.value)?.data)) {
    return unavailable("malformed_response", "skills/list answered without a data list", [skills.evidence]);
  }
  return observed(mapSkills(skills.value), [skills.evidence]);
}

/** The MCP servers every thread of the agent declares: its own, and its host-tools server when it has host tools. */
function agentServerNames(request: InspectRequest): string[] {
  const names = request.resources.mcp.map((server) => server.name);
  if (request.resources.tools.length > 0) names.push(HOST_TOOLS_SERVER_NAME);
  return names;
}

/** Every panel, from one initialized connection. Rejects only when `signal` aborts. */
export async function inspectConnection(
  connection: CodexConnection,
  request: InspectRequest,
  executablePath: string,
  signal: AbortSignal,
): Promise<Omit<InspectResponse, "secrets">> {
  const workspace = request.workspace;
  const recorder = new EvidenceRecorder(TRANSPORT, connection.providerVersion);
  const calls: Calls = { connection, recorder, signal };
  // The handshake's evidence is stamped before the panel calls start.
  const environment = environmentObservation(connection, recorder, executablePath);
  // Independent read-only calls, in flight together on one connection. `mcpServerStatus/list`
  // is not among them: answering it starts every configured MCP server.
  const [models, config, account, limits, skills] = await Promise.all([
    paged(calls, "model/list", { includeHidden: true }, "account"),
    single(calls, "config/read", { cwd: workspace }, "workspace"),
    single(calls, "account/read", {}, "account"),
    single(calls, "account/rateLimits/read", undefined, "account"),
    single(calls, "skills/list", { cwds: [workspace] }, "workspace"),
  ]);
  if (!("error" in account)) connection.account = account.value;
  const { configuration, profile, mcp } = configObservations(config, agentServerNames(request));
  return {
    environment,
    models: modelsObservation(models),
    commands: unsupported("codex app-server offers no machine-readable catalogue of slash commands"),
    skills: skillsObservation(skills),
    mcp,
    quota: quotaObservation(limits),
    profile,
    configuration,
    auth: authObservation(account),
  };
}

export { allUnavailable, unavailable };
