/**
 * Where Claude Code and CodeBuddy Code differ on the stream-json control protocol. The shared
 * core (process, turn mapping, permissions, run, inspect, standby) asks the dialect and never
 * branches on a driver id. Each difference is a named member, tested on its own.
 */
import type { Descriptor, InspectResponse } from "../../driver/types.js";
import type { ApprovalDecision } from "../../events/types.js";
import type { StreamJsonDriverErrorCode } from "./codes.js";
import type { Evidence } from "../../inspect/types.js";
import type { ProviderBinding, SettingSource } from "./config.js";
import type { EvidenceRecorder } from "../../driver/kit/evidence.js";
import type { StreamJsonProcess } from "./process.js";
import type { CanUseToolRequest, Json, ResultLine } from "./wire.js";

/** Proxy and CA variables both CLIs (Node.js programs) read; each dialect's `inheritEnv` includes them. */
export const NODE_NETWORK_ENV: readonly string[] = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy", "NODE_EXTRA_CA_CERTS"];

/** Claude Code permission modes the driver uses (CodeBuddy accepts the same names). */
export type PermissionMode = "default" | "dontAsk";

/** What the inspection mapping gets besides the initialize reply. */
export interface InspectContext {
  process: StreamJsonProcess;
  clock: EvidenceRecorder;
  executable: string;
  signal: AbortSignal;
  /** Secrets the driver already knows (the provider key). */
  knownSecrets: readonly string[];
  /** Set when the process was started without the MCP servers a run would have: why (the MCP panel is unavailable). */
  mcpWithheld?: string;
}

export interface StreamJsonDialect {
  /** Driver id and provenance provider name. */
  readonly id: string;
  readonly name: string;
  /** Evidence and descriptor transport, e.g. `"claude stream-json"`. */
  readonly transport: string;
  readonly inputs: Descriptor["inputs"];
  readonly features: Descriptor["features"];
  /** The resource kinds this CLI receives from the driver. */
  readonly resources: Descriptor["resources"];

  /** The executable used when the config names none. */
  defaultExecutable(): string;
  /** How to install the CLI, named when its executable is missing. */
  readonly install: string;
  /** How to sign in (login command or credential variable), named when the CLI reports no login. */
  readonly login: string;
  /** A version read next to the executable when the protocol does not report one. */
  executableVersion?(executable: string): string | undefined;

  /** Host variables the child may see (its own settings, proxies); everything else is scrubbed. */
  readonly inheritEnv: readonly string[];
  /** Variables the driver sets unless the config's `env` overrides them. */
  readonly defaultEnv: Readonly<Record<string, string>>;
  /** Variable holding the config dir, and its default relative to HOME. */
  readonly configDirEnv: string;
  readonly defaultConfigDirName: string;
  /** Child variables for a provider binding, and inherited credentials they replace. */
  providerEnv(binding: ProviderBinding, key: string | undefined): Record<string, string | undefined>;

  /** Arguments selecting the stream-json protocol. */
  readonly protocolArgs: readonly string[];
  /** Arguments routing permission prompts to the host (`can_use_tool`). */
  permissionArgs(mode: PermissionMode): string[];
  settingSourcesArgs(sources: readonly SettingSource[]): string[];

  /** The zero-prompt `initialize` request; `hasPrompt` when a user message will follow on this process. */
  initializeRequest(options: { appendSystemPrompt?: string; hasPrompt?: boolean }): { subtype: "initialize" } & Json;
  /** Maps the initialize reply (plus any further read-only calls) into inspection panels. */
  inspect(reply: Json, initEvidence: Evidence, context: InspectContext): Promise<InspectResponse>;
  /**
   * True when the initialize reply says for certain that the CLI has no credential, so a run is
   * refused before its prompt is written; absent or false when it cannot tell.
   */
  signedOut?(reply: Json): boolean;

  /** The `control_response` payload answering `can_use_tool`. */
  permissionAnswer(decision: ApprovalDecision, request: CanUseToolRequest, updatedInput?: Json): Json;
  /** True when `permissionAnswer` applies the request's `permission_suggestions` for `optionId: "allow_always"`. */
  readonly appliesPermissionSuggestions?: boolean;
  /** True when control requests fail until the first turn has opened a session. */
  readonly controlNeedsSession: boolean;
  /** True when `can_use_tool` may arrive before the assistant message that holds the tool call. */
  readonly permissionBeforeToolUse: boolean;
  /** The cost a result reports, or undefined when it reports none. */
  costOf(result: ResultLine): number | undefined;
  /** Directory name under `<configDir>/projects` for sessions started in `cwd`. */
  projectSlug(cwd: string): string;
  /** A failure code for an error result (e.g. `auth_required`), when recognisable. */
  failureCode(result: ResultLine, assistantError: string | undefined): { code: StreamJsonDriverErrorCode; retryable: boolean } | undefined;
}
