/**
 * Inspection over `initialize` only: no `session/new`, no `authenticate`, never a login. ACP
 * reports models and native commands only inside a session, so those panels are `unsupported`
 * at inspection time (a run reports them as they arrive: `available_commands` notices and the
 * session's config options), never a static list and never a conversation made to learn them.
 */
import type { InspectResponse } from "../../driver/types.js";
import { EvidenceRecorder } from "../../driver/kit/evidence.js";
import { observed, unavailable, unsupported } from "../../driver/observations.js";
import { AdaptorError } from "../../errors/index.js";
import type { AuthMethodInfo, AuthReport, EnvironmentReport, Observation, ProviderCapabilities } from "../../inspect/types.js";
import type { AuthStatusResponse, InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import type { AcpConnection } from "./connection.js";
import { errorText } from "../../driver/json.js";
import { bool, list, num, open, openAnyVariant, openOrEmpty, readFrame, str, type Lenient } from "../../driver/lens.js";

/** `initialize`'s answer as inspection reads it. */
type Init = Lenient<InitializeResponse>;

/**
 * The `auth/status` answer as the RFD drafts had it (`authenticated`/`signedIn`/`status`, and the
 * method); the schema's `AuthStatusResponse` names the state `state`.
 */
interface DraftAuthStatus {
  authenticated?: boolean;
  signedIn?: boolean;
  status?: string;
  methodId?: string;
  method?: string;
}

/** An `auth/status` answer as the schema or the drafts type it. */
export type AuthStatusFrame = AuthStatusResponse & DraftAuthStatus;

/** `AuthMethod._meta` flavours agents use to say what kind of login a method is. */
interface AuthMethodMeta {
  "terminal-auth"?: unknown;
  "api-key"?: unknown;
  gateway?: unknown;
}

const initOf = (init: unknown): Init => readFrame<InitializeResponse>(init) ?? {};

export const TRANSPORT = "acp (JSON-RPC over stdio)";

/** What a malformed answer was, without its content (it may hold anything). */
const describe = (value: unknown): string => (value === null || value === undefined ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`);

/** Auth methods with their kinds (`agent`, `terminal`, `env_var`, or a `_meta` flavour). */
export function authMethods(initialize: unknown): AuthMethodInfo[] {
  return list(initOf(initialize).authMethods)
    .flatMap((entry) => openAnyVariant(entry) ?? [])
    .map((m) => {
      const meta = readFrame<AuthMethodMeta>(m._meta) ?? {};
      const kind = str(m.type) ?? (meta["terminal-auth"] !== undefined ? "terminal" : meta["api-key"] !== undefined ? "api_key" : meta.gateway !== undefined ? "gateway" : "agent");
      const out: AuthMethodInfo = { id: str(m.id) ?? "", kind };
      if (str(m.name) !== undefined) out.name = str(m.name)!;
      return out;
    })
    .filter((m) => m.id !== "");
}

/** `initialize.agentCapabilities` as typed flags (a flag the agent did not send is `false`). */
export function agentCapabilities(initialize: unknown): ProviderCapabilities {
  const caps = openOrEmpty(initOf(initialize).agentCapabilities);
  const prompt = openOrEmpty(caps.promptCapabilities);
  const mcp = openOrEmpty(caps.mcpCapabilities);
  const sessions: Record<string, unknown> = openOrEmpty(caps.sessionCapabilities);
  return {
    prompt: { image: bool(prompt.image) === true, audio: bool(prompt.audio) === true, embeddedContext: bool(prompt.embeddedContext) === true },
    mcp: { http: bool(mcp.http) === true, sse: bool(mcp.sse) === true },
    loadSession: bool(caps.loadSession) === true,
    sessionOperations: Object.keys(sessions)
      .filter((name) => sessions[name] !== null && sessions[name] !== false)
      .sort(),
  };
}

export function environmentReport(initialize: unknown, executablePath: string): EnvironmentReport {
  const init = initOf(initialize);
  const info = openOrEmpty(init.agentInfo);
  const report: EnvironmentReport = {
    executablePath,
    platform: `${process.platform}-${process.arch}`,
    capabilities: agentCapabilities(init),
    authMethods: authMethods(init),
  };
  const protocolVersion = num(init.protocolVersion) ?? str(init.protocolVersion);
  if (protocolVersion !== undefined) report.protocolVersion = String(protocolVersion);
  if (str(info.version) !== undefined) report.version = str(info.version)!;
  if (str(info.name) !== undefined) report.agentName = str(info.name)!;
  if (str(info.title) !== undefined) report.agentTitle = str(info.title)!;
  return report;
}

/**
 * What an `auth/status` answer says: the schema's `state` when the agent sends one, else the
 * drafts' `authenticated`/`signedIn`/`status` (agents built on the drafts). `undefined` when the
 * agent says it cannot tell (`unknown`, or a state this driver does not know): reading that as
 * "signed out" would report an observation the agent never made.
 */
export function authStatusReport(answer: Lenient<AuthStatusFrame>): AuthReport | undefined {
  const state = str(answer.state);
  let report: AuthReport;
  if (state === "authenticated" || state === "unauthenticated") report = { signedIn: state === "authenticated" };
  else if (state === "not_required") report = { signedIn: false, required: false };
  else if (state !== undefined) return undefined;
  else report = { signedIn: bool(answer.authenticated) === true || bool(answer.signedIn) === true || str(answer.status) === "authenticated" };
  const active = list(answer.accounts).map((entry) => open(entry)).find((account) => bool(account?.active) === true);
  const account = str(active?.email) ?? str(active?.name) ?? str(active?.label);
  if (account !== undefined) report.account = account;
  const methodId = str(answer.methodId) ?? str(answer.method);
  if (methodId !== undefined) report.method = methodId;
  return report;
}

/** The auth panel from the agent's `auth/status` answer; only cancellation rejects. */
async function authStatusPanel(connection: AcpConnection, recorder: EvidenceRecorder, signal: AbortSignal): Promise<Observation<AuthReport>> {
  const call = await recorder.measure("auth/status", () => connection.request("auth/status", {}, signal, "before_delivery"), "account");
  if ("error" in call) {
    signal.throwIfAborted();
    return AdaptorError.is(call.error) && call.error.code === "method_unsupported"
      ? unsupported("the agent advertises auth/status but does not implement it (method not found)")
      : unavailable("provider_error", `auth/status failed: ${errorText(call.error)}`);
  }
  const reply = call.value;
  const records = [call.evidence];
  const answer = readFrame<AuthStatusFrame>(reply);
  // Reading a non-object as "signed out" would report an observation the agent never made.
  if (answer === undefined) return unavailable("malformed_response", `auth/status answered ${describe(reply)}, not an object`, records);
  const report = authStatusReport(answer);
  return report === undefined
    ? unavailable("provider_error", `auth/status answered state ${JSON.stringify(str(answer.state))}: the agent cannot tell`, records)
    : observed(report, records);
}

/** Panels from an initialized connection (plus `auth/status` when the agent advertises it). */
export async function inspectConnection(connection: AcpConnection, executablePath: string, signal: AbortSignal): Promise<InspectResponse> {
  const init = initOf(connection.init);
  const recorder = new EvidenceRecorder(TRANSPORT, str(open(init.agentInfo)?.version));
  const env = environmentReport(init, executablePath);
  const authCaps = openOrEmpty(openOrEmpty(init.agentCapabilities).auth);

  const auth: Observation<AuthReport> =
    open(authCaps.status) !== undefined || bool(authCaps.status) === true
      ? await authStatusPanel(connection, recorder, signal)
      : unsupported("the agent advertises no auth/status probe; ACP agents report missing authentication only when a session is created or prompted");

  const sessionScoped = (what: string) =>
    unsupported<never>(`ACP reports ${what} only inside a session; inspect() creates no session, so a run reports them as they arrive`, [], "session_scoped");
  return {
    environment: observed(env, [recorder.record("initialize", { durationMs: connection.initDurationMs })]),
    models: sessionScoped("models (session config options)"),
    commands: sessionScoped("native commands (available_commands_update)"),
    skills: unsupported("ACP has no skills listing"),
    mcp: unsupported("ACP has no MCP status method (the MCP transports the agent accepts are in the environment panel)"),
    quota: unsupported("ACP has no quota method"),
    profile: unsupported("ACP has no profile method"),
    configuration: sessionScoped("configuration (modes and config options)"),
    auth,
  };
}
