/**
 * Zero-prompt inspection over an initialized connection: `model/list` (every page),
 * `config/read` (configuration, profile and the configured MCP servers), `account/read`,
 * `account/rateLimits/read` and `skills/list`. No method here creates a thread or starts an MCP
 * server. Every answer is parsed leniently:
 * unknown fields are ignored, a missing field is `undefined`, never a guess.
 */
import { allUnavailable, observed, unavailable, unsupported } from "../../driver/observations.js";
import type { InspectResponse } from "../../driver/types.js";
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
import type { ClientMethod, ClientParams, CodexConnection } from "./connection.js";
import type { GetAccountRateLimitsResponse } from "./protocol/v2/GetAccountRateLimitsResponse.js";
import type { GetAccountResponse } from "./protocol/v2/GetAccountResponse.js";
import type { Model } from "./protocol/v2/Model.js";
import type { ModelListResponse } from "./protocol/v2/ModelListResponse.js";
import type { RateLimitWindow } from "./protocol/v2/RateLimitWindow.js";
import type { SkillsListResponse } from "./protocol/v2/SkillsListResponse.js";

export const TRANSPORT = "codex app-server";

/** Upper bound on pages followed for one paginated method (a server looping on a cursor must not hang inspect). */
const MAX_PAGES = 50;

type Scope = Evidence["scope"];
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : undefined);

/** Drops `undefined` members so observations stay minimal. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

export function evidence(method: string, scope: Scope, startedAt: number, providerVersion: string | undefined): Evidence {
  const record: Evidence = {
    transport: TRANSPORT,
    method,
    scope,
    observedAt: new Date().toISOString(),
    durationMs: Math.max(0, Math.round((performance.now() - startedAt) * 100) / 100),
  };
  if (providerVersion !== undefined) record.providerVersion = providerVersion;
  return record;
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
  if (!isObject(model)) return undefined;
  const m = model as Partial<Model> & Json;
  const id = str(m.model) ?? str(m.id);
  if (id === undefined) return undefined;
  const efforts: EffortInfo[] | undefined = Array.isArray(m.supportedReasoningEfforts)
    ? m.supportedReasoningEfforts
        .filter(isObject)
        .map((e) => compact<EffortInfo>({ id: str(e.reasoningEffort) ?? "", description: str(e.description) }))
        .filter((e) => e.id !== "")
    : undefined;
  const modalities = Array.isArray(m.inputModalities)
    ? (m.inputModalities.filter((x) => x === "text" || x === "image" || x === "audio") as ModelInfo["inputModalities"])
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

function mapWindow(name: string, window: unknown): QuotaWindow | undefined {
  if (!isObject(window)) return undefined;
  const w = window as Partial<RateLimitWindow>;
  return compact<QuotaWindow>({
    name,
    usedPercent: num(w.usedPercent),
    windowMinutes: num(w.windowDurationMins),
    resetsAt: isoFromUnixSeconds(w.resetsAt),
  });
}

export function mapQuota(answer: unknown): QuotaReport {
  const a = (isObject(answer) ? answer : {}) as Partial<GetAccountRateLimitsResponse>;
  const windows: QuotaWindow[] = [];
  const snapshots: [string, unknown][] = [];
  if (isObject(a.rateLimitsByLimitId)) snapshots.push(...Object.entries(a.rateLimitsByLimitId));
  else if (a.rateLimits !== undefined) snapshots.push([str((a.rateLimits as Json | null)?.limitId) ?? "codex", a.rateLimits]);
  let plan: string | undefined;
  for (const [limitId, snapshot] of snapshots) {
    if (!isObject(snapshot)) continue;
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
  const a = (isObject(answer) ? answer : {}) as Partial<GetAccountResponse>;
  const account: unknown = a.account;
  if (isObject(account)) {
    const type = str(account.type);
    return observed(
      compact<AuthReport>({ signedIn: true, method: type, account: str(account.email) ?? undefined, plan: str(account.planType) }),
      [],
    );
  }
  if (a.requiresOpenaiAuth === true) return { signedIn: false, required: true };
  return observed<AuthReport>({ signedIn: false }, []);
}

export function mapSkills(answer: unknown): SkillSnapshot {
  const a = (isObject(answer) ? answer : {}) as Partial<SkillsListResponse>;
  const skills: SkillSnapshot["skills"] = [];
  const seen = new Set<string>();
  for (const entry of Array.isArray(a.data) ? a.data : []) {
    if (!isObject(entry) || !Array.isArray(entry.skills)) continue;
    for (const skill of entry.skills) {
      if (!isObject(skill) || typeof skill.name !== "string") continue;
      const key = `${skill.name}\u0000${str(skill.scope) ?? ""}`;
      if (seen.has(key)) continue;
      seen.add(key);
      skills.push(compact({ name: skill.name, description: str(skill.description), source: str(skill.scope), enabled: bool(skill.enabled) }));
    }
  }
  return { skills };
}

/** The settings of one Codex config table (the root, or a profile) the report carries. */
function settingsOf(table: Json): ConfigurationSettings {
  const features = isObject(table.features)
    ? Object.fromEntries(Object.entries(table.features).filter((entry): entry is [string, boolean] => typeof entry[1] === "boolean"))
    : undefined;
  return compact<ConfigurationSettings>({
    model: str(table.model),
    effort: str(table.model_reasoning_effort),
    modelProvider: str(table.model_provider),
    approvalPolicy: str(table.approval_policy),
    sandboxMode: str(table.sandbox_mode),
    features: features && Object.keys(features).length > 0 ? features : undefined,
  });
}

export function mapConfiguration(answer: unknown): { configuration: ConfigurationReport; profile: ProfileSnapshot } {
  const config = isObject(answer) && isObject(answer.config) ? answer.config : {};
  const profileName = str(config.profile);
  const profiles = isObject(config.profiles) ? config.profiles : {};
  const profile = profileName !== undefined && isObject(profiles[profileName]) ? settingsOf(profiles[profileName]) : {};
  return {
    configuration: settingsOf(config),
    profile: compact<ProfileSnapshot>({ name: profileName, ...profile }),
  };
}

/**
 * The MCP servers the effective config declares, by name only (their commands, URLs and
 * environment may hold credentials). Listing their live status (`mcpServerStatus/list`) would
 * start every one of them, so inspection reports what is configured and starts none.
 */
export function mapConfiguredMcpServers(answer: unknown): McpReport {
  const config = isObject(answer) && isObject(answer.config) ? answer.config : {};
  const table = isObject(config.mcp_servers) ? config.mcp_servers : {};
  const servers = Object.entries(table)
    .filter(([, server]) => isObject(server))
    .map(([name, server]) => ({ name, status: (server as Json).enabled === false ? "disabled" : "configured" }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { servers };
}

// ---------------------------------------------------------------------------------------------

async function paged<M extends "model/list">(
  connection: CodexConnection,
  method: M,
  params: ClientParams<M>,
  signal: AbortSignal,
  scope: Scope,
): Promise<{ pages: unknown[]; records: Evidence[]; error?: unknown }> {
  const pages: unknown[] = [];
  const records: Evidence[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const started = performance.now();
    let page: unknown;
    try {
      page = await connection.request<unknown, M>(method, cursor === undefined ? params : ({ ...(params as object), cursor } as ClientParams<M>), signal);
    } catch (error) {
      signal.throwIfAborted();
      return { pages, records, error };
    }
    records.push(evidence(method, scope, started, connection.providerVersion));
    pages.push(page);
    const next = isObject(page) ? str(page.nextCursor) : undefined;
    if (next === undefined || next === "" || next === cursor) break;
    cursor = next;
  }
  return { pages, records };
}

async function single<M extends ClientMethod>(
  connection: CodexConnection,
  method: M,
  params: ClientParams<M>,
  signal: AbortSignal,
  scope: Scope,
): Promise<{ answer?: unknown; record: Evidence; error?: unknown }> {
  const started = performance.now();
  try {
    const answer = await connection.request<unknown, M>(method, params, signal);
    return { answer, record: evidence(method, scope, started, connection.providerVersion) };
  } catch (error) {
    signal.throwIfAborted();
    return { error, record: evidence(method, scope, started, connection.providerVersion) };
  }
}

/** Every panel, from one initialized connection. Rejects only when `signal` aborts. */
export async function inspectConnection(
  connection: CodexConnection,
  workspace: string,
  executablePath: string,
  signal: AbortSignal,
): Promise<Omit<InspectResponse, "secrets">> {
  const version = connection.providerVersion;
  const init = connection.initialize;
  const initEvidence: Evidence = {
    transport: TRANSPORT,
    method: "initialize",
    scope: "process",
    observedAt: new Date().toISOString(),
    durationMs: Math.round(connection.handshakeMs * 100) / 100,
  };
  if (version !== undefined) initEvidence.providerVersion = version;

  // Independent read-only calls, in flight together on one connection. `mcpServerStatus/list`
  // is not among them: answering it starts every configured MCP server.
  const [models, config, account, limits, skills] = await Promise.all([
    paged(connection, "model/list", { includeHidden: true }, signal, "account"),
    single(connection, "config/read", { cwd: workspace }, signal, "workspace"),
    single(connection, "account/read", {}, signal, "account"),
    single(connection, "account/rateLimits/read", undefined, signal, "account"),
    single(connection, "skills/list", { cwds: [workspace] }, signal, "workspace"),
  ]);

  const environment: Observation<EnvironmentReport> = observed(
    compact({
      executablePath,
      version,
      protocolVersion: "v2",
      platform: init ? `${init.platformFamily}/${init.platformOs}` : undefined,
      agentName: "codex",
      agentTitle: "Codex app-server",
    }),
    [initEvidence],
  );

  let modelsObs: Observation<ModelInfo[]>;
  if (models.error !== undefined && models.pages.length === 0) modelsObs = failedObservation("model/list", models.error, models.records);
  else if (models.pages.some((p) => !isObject(p) || !Array.isArray(p.data))) {
    modelsObs = unavailable("malformed_response", "model/list answered without a data list", models.records);
  } else {
    const list = models.pages.flatMap((p) => ((p as Json).data as unknown[]).map(mapModel).filter((m): m is ModelInfo => m !== undefined));
    modelsObs = observed(list, models.records);
  }

  let configuration: Observation<ConfigurationReport>;
  let profile: Observation<ProfileSnapshot>;
  let mcpObs: Observation<McpReport>;
  if (config.error !== undefined) {
    configuration = failedObservation("config/read", config.error, [config.record]);
    profile = failedObservation("config/read", config.error, [config.record]);
    mcpObs = failedObservation("config/read", config.error, [config.record]);
  } else if (!isObject(config.answer) || !isObject(config.answer.config)) {
    configuration = unavailable("malformed_response", "config/read answered without a config", [config.record]);
    profile = unavailable("malformed_response", "config/read answered without a config", [config.record]);
    mcpObs = unavailable("malformed_response", "config/read answered without a config", [config.record]);
  } else {
    const mapped = mapConfiguration(config.answer);
    configuration = observed(mapped.configuration, [config.record]);
    profile = observed(mapped.profile, [config.record]);
    mcpObs = observed(mapConfiguredMcpServers(config.answer), [config.record]);
  }

  let auth: Observation<AuthReport>;
  if (account.error !== undefined) auth = failedObservation("account/read", account.error, [account.record]);
  else {
    const mapped = mapAuth(account.answer);
    auth = "status" in mapped
      ? { ...mapped, evidence: [account.record] }
      : unavailable("auth_required", "Codex is not signed in and its model provider requires an OpenAI account", [account.record]);
  }

  let quota: Observation<QuotaReport>;
  if (limits.error !== undefined) quota = failedObservation("account/rateLimits/read", limits.error, [limits.record]);
  else if (!isObject(limits.answer)) quota = unavailable("malformed_response", "account/rateLimits/read answered without a result", [limits.record]);
  else quota = observed(mapQuota(limits.answer), [limits.record]);

  let skillsObs: Observation<SkillSnapshot>;
  if (skills.error !== undefined) skillsObs = failedObservation("skills/list", skills.error, [skills.record]);
  else if (!isObject(skills.answer) || !Array.isArray(skills.answer.data)) {
    skillsObs = unavailable("malformed_response", "skills/list answered without a data list", [skills.record]);
  } else skillsObs = observed(mapSkills(skills.answer), [skills.record]);

  return {
    environment,
    models: modelsObs,
    commands: unsupported("codex app-server offers no machine-readable catalogue of slash commands"),
    skills: skillsObs,
    mcp: mcpObs,
    quota,
    profile,
    configuration,
    auth,
  };
}

export { allUnavailable, unavailable };
