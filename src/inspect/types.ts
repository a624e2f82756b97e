/**
 * Inspection DTOs (DESIGN §6). Every panel is an {@link Observation}: observed (with evidence),
 * unavailable (e.g. not signed in) or unsupported by the installed provider (with a reason).
 */
import type { NativeCommandInfo } from "../events/types.js";

/** Declared with the events, whose `available_commands` notices carry it too. */
export type { NativeCommandInfo };

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

export interface EnvironmentReport {
  executablePath?: string;
  version?: string;
  protocolVersion?: string;
  platform?: string;
  agentName?: string;
  agentTitle?: string;
  /** What the provider announced it can do, when its handshake says so. */
  capabilities?: ProviderCapabilities;
  /** Ways the provider offers to sign in, as it announced them (never a credential). */
  authMethods?: AuthMethodInfo[];
}

/** Capabilities a provider announced in its handshake; absent = not announced. */
export interface ProviderCapabilities {
  /** Content kinds a prompt may carry besides text (ACP `promptCapabilities`). */
  prompt?: { image: boolean; audio: boolean; embeddedContext: boolean };
  /** Transports of MCP servers the provider accepts besides stdio (ACP `mcpCapabilities`). */
  mcp?: { http: boolean; sse: boolean };
  /** Whether an earlier session can be loaded (ACP `loadSession`). */
  loadSession?: boolean;
  /** Session operations the provider offers (ACP `sessionCapabilities` keys, e.g. `resume`, `fork`). */
  sessionOperations?: string[];
  /** Named protocol features the provider listed (e.g. Claude Code's `initialize` capabilities). */
  features?: string[];
}

export interface AuthMethodInfo {
  id: string;
  name?: string;
  /** How the method signs in: `agent`, `terminal`, `env_var`, `api_key`, `gateway`, or the provider's own word. */
  kind: string;
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
  /**
   * The provider's word for the server's state. A server that inspection did not start is
   * `configured` or `disabled`; a live process reports its own (`ready`, `failed`, …).
   */
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

/** Effective settings the provider reported; a setting it did not report is absent. */
export interface ConfigurationSettings {
  model?: string;
  effort?: string;
  /** The model provider the settings select (Codex `model_provider`). */
  modelProvider?: string;
  /** The provider's own approval policy name (Codex `approval_policy`). */
  approvalPolicy?: string;
  /** The provider's own sandbox mode name (Codex `sandbox_mode`). */
  sandboxMode?: string;
  /** The provider's own permission mode name (Claude Code `permission_mode`). */
  permissionMode?: string;
  outputStyle?: string;
  availableOutputStyles?: string[];
  /** Claude Code's fast mode state, in its own words. */
  fastMode?: string;
  /** Feature flags the provider reported as on or off (Codex `features`). */
  features?: Record<string, boolean>;
}

/** The active profile, when the provider has profiles, and the settings it sets. */
export interface ProfileSnapshot extends ConfigurationSettings {
  name?: string;
}

export type ConfigurationReport = ConfigurationSettings;

export interface AuthReport {
  signedIn: boolean;
  /** `false` when the provider states that no sign-in is needed; absent when it does not say. */
  required?: boolean;
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
