/**
 * Inspection DTOs (DESIGN §6). Every panel is an {@link Observation}: observed (with evidence),
 * unavailable (e.g. not signed in) or unsupported by the installed provider (with a reason).
 */

export type ObservationStatus = "observed" | "unavailable" | "unsupported";

/** Stable reason codes; drivers may add their own strings. */
export type ReasonCode =
  | "auth_required"
  | "executable_not_found"
  | "provider_error"
  | "malformed_response"
  | "method_unsupported"
  | "timeout"
  | "not_applicable"
  | (string & {});

export interface ObservationReason {
  code: ReasonCode;
  message: string;
}

/** Where an observation came from. */
export interface Evidence {
  /** e.g. `"codex app-server"`. */
  transport: string;
  /** The official method called, e.g. `"model/list"`. */
  method: string;
  providerVersion?: string;
  scope: "process" | "account" | "workspace" | "session";
  /** ISO-8601 time the answer arrived. */
  observedAt: string;
  durationMs: number;
}

export interface Observation<T> {
  status: ObservationStatus;
  /** Present only when observed. */
  value?: T;
  /** Present only when unavailable or unsupported. */
  reason?: ObservationReason;
  evidence: Evidence[];
}

export interface EffortInfo {
  id: string;
  description?: string;
}

export interface ModelInfo {
  id: string;
  displayName?: string;
  description?: string;
  hidden?: boolean;
  isDefault?: boolean;
  inputModalities?: ("text" | "image" | "audio" | "file")[];
  efforts?: EffortInfo[];
  /** May be undefined: not every provider names a default. */
  defaultEffort?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

export interface NativeCommandInfo {
  name: string;
  description?: string;
  argumentHint?: string;
}

export interface EnvironmentReport {
  executablePath?: string;
  version?: string;
  protocolVersion?: string;
  platform?: string;
  agentName?: string;
  agentTitle?: string;
  capabilities?: Record<string, unknown>;
}

export interface SkillInfo {
  name: string;
  description?: string;
  source?: string;
  enabled?: boolean;
}
export interface SkillSnapshot {
  skills: SkillInfo[];
}

export interface McpServerStatus {
  name: string;
  status: string;
  tools?: string[];
}
export interface McpReport {
  servers: McpServerStatus[];
}

export interface QuotaWindow {
  name: string;
  usedPercent?: number;
  resetsAt?: string;
  windowMinutes?: number;
}
export interface QuotaReport {
  windows: QuotaWindow[];
  plan?: string;
}

export interface ProfileSnapshot {
  name?: string;
  values: Record<string, unknown>;
}

export interface ConfigurationReport {
  values: Record<string, unknown>;
  model?: string;
  effort?: string;
}

export interface AuthReport {
  signedIn: boolean;
  method?: string;
  account?: string;
  plan?: string;
}

/** Static facts about the driver behind an agent. */
export interface DriverInfo {
  id: string;
  name: string;
  transport: string;
}

/** One live, read-only, detached snapshot of what the provider offers. */
export interface Inspection {
  driver: DriverInfo;
  environment: Observation<EnvironmentReport>;
  models: Observation<ModelInfo[]>;
  commands: Observation<NativeCommandInfo[]>;
  skills: Observation<SkillSnapshot>;
  mcp: Observation<McpReport>;
  quota: Observation<QuotaReport>;
  profile: Observation<ProfileSnapshot>;
  configuration: Observation<ConfigurationReport>;
  auth: Observation<AuthReport>;
}

export type PanelName = Exclude<keyof Inspection, "driver">;

export const PANEL_NAMES: readonly PanelName[] = [
  "environment",
  "models",
  "commands",
  "skills",
  "mcp",
  "quota",
  "profile",
  "configuration",
  "auth",
];

export interface PrepareReport {
  inspection: Inspection;
  process: "unsupported" | "transient" | "ready";
}
