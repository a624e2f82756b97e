/**
 * Claude Code's side of the stream-json control protocol (CLI 2.1.x).
 *
 * - Permission prompts reach the host only with `--permission-prompt-tool stdio`; the answer is
 *   `{behavior: "allow", updatedInput}` or `{behavior: "deny", message}`.
 * - `can_use_tool` arrives after the assistant message that holds the tool call.
 * - Control requests work before the first user message (an interrupt included).
 * - `initialize` reports commands, models, account and output styles offline; `mcp_status` and
 *   `get_settings` answer without a session.
 * - Sessions live in `<config dir>/projects/<cwd with every non-alphanumeric as "-">/<id>.jsonl`.
 */
import type { InspectResponse } from "../../driver/types.js";
import type { AuthReport, ConfigurationReport, EnvironmentReport, ModelInfo } from "../../inspect/types.js";
import { NODE_NETWORK_ENV, type StreamJsonDialect } from "../stream-json/dialect.js";
import { observed, unavailable } from "../../driver/observations.js";
import { agentSkillsPanel, commandsPanel, mcpPanel, NO_PROFILE, NO_QUOTA, notLoggedIn, outputStyles, unsupported } from "../stream-json/panels.js";
import { count, isObject, str, type Json } from "../stream-json/wire.js";
import { CLAUDE_INSTALL, CLAUDE_LOGIN, defaultClaudeExecutable } from "./locate.js";

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export const claudeDialect: StreamJsonDialect = {
  id: "claude",
  name: "Claude Code",
  transport: "claude stream-json",
  inputs: {
    image: { modes: ["native"], mediaTypes: IMAGE_TYPES },
    file: { modes: ["native"], mediaTypes: ["application/pdf"] },
    audio: { modes: [] },
  },
  features: { steer: "unsupported", resume: "native", fork: "native", approvals: true, userQuestions: true, structuredOutput: true, compact: "native" },
  resources: { instructions: true, hostTools: true, skills: true, mcp: { stdio: true, http: true } },

  defaultExecutable: defaultClaudeExecutable,
  install: CLAUDE_INSTALL,
  login: CLAUDE_LOGIN,
  // Only a reply that has an account record and names no credential in it: an older CLI without one is not refused.
  signedOut: (reply) => isObject(reply.account) && authOf(reply.account) === undefined,

  inheritEnv: [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_TMPDIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "AWS_REGION",
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    ...NODE_NETWORK_ENV,
  ],
  defaultEnv: { DISABLE_AUTOUPDATER: "1" },
  configDirEnv: "CLAUDE_CONFIG_DIR",
  defaultConfigDirName: ".claude",
  providerEnv(binding, key) {
    // The binding replaces whatever credentials the host has for Anthropic's own endpoint.
    return { ANTHROPIC_BASE_URL: binding.baseUrl, ANTHROPIC_API_KEY: key, ANTHROPIC_AUTH_TOKEN: undefined };
  },

  protocolArgs: ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
  permissionArgs: (mode) => ["--permission-prompt-tool", "stdio", "--permission-mode", mode],
  settingSourcesArgs: (sources) => ["--setting-sources", sources.join(",")],

  initializeRequest: ({ appendSystemPrompt }) => ({ subtype: "initialize", ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}) }),

  async inspect(reply, initEvidence, context): Promise<InspectResponse> {
    const version = str(reply.claude_code_version);
    context.clock.providerVersion = version;
    const init = context.clock.stamp([initEvidence]);

    const environment: EnvironmentReport = { executablePath: context.executable, platform: process.platform };
    if (version) environment.version = version;
    if (Array.isArray(reply.capabilities)) {
      environment.capabilities = { features: reply.capabilities.filter((c): c is string => typeof c === "string") };
    }

    const account = isObject(reply.account) ? reply.account : undefined;
    const auth = authOf(account);
    const models = Array.isArray(reply.models)
      ? auth
        ? observed(reply.models.filter(isObject).map(modelOf), init)
        : notLoggedIn<ModelInfo[]>("Claude Code", init)
      : unavailable<ModelInfo[]>("malformed_response", "initialize reported no model list", init);

    const [mcp, settings] = await Promise.all([
      mcpPanel(context),
      context.clock.measure("get_settings", () => context.process.request({ subtype: "get_settings" }, { signal: context.signal, timeoutMs: 30_000 })),
    ]);
    context.signal.throwIfAborted();
    const configuration: ConfigurationReport = outputStyles(reply);
    const permissionMode = str(reply.current_permission_mode);
    if (permissionMode) configuration.permissionMode = permissionMode;
    const fastMode = str(reply.fast_mode_state);
    if (fastMode) configuration.fastMode = fastMode;
    const configEvidence = [...init];
    if (!("error" in settings)) {
      configEvidence.push(settings.evidence);
      const applied = isObject(settings.value.applied) ? settings.value.applied : {};
      const model = str(applied.model);
      const effort = str(applied.effort);
      if (model) configuration.model = model;
      if (effort) configuration.effort = effort;
    }

    return {
      environment: observed(environment, init),
      models,
      commands: commandsPanel(reply.commands, init),
      skills: agentSkillsPanel(reply.commands, init),
      mcp,
      quota: unsupported(NO_QUOTA),
      profile: unsupported(NO_PROFILE),
      configuration: observed(configuration, configEvidence),
      auth: auth ? observed(auth, init) : notLoggedIn<AuthReport>("Claude Code", init),
    };
  },

  permissionAnswer(decision, request, updatedInput) {
    if (decision.decision === "allow") {
      const allow: Json = { behavior: "allow", updatedInput: updatedInput ?? {} };
      // "Always allow": the CLI's own suggestions, kept to this session (never written to settings files).
      if (decision.optionId === "allow_always" && Array.isArray(request.permission_suggestions)) {
        allow.updatedPermissions = request.permission_suggestions.map((s) => (isObject(s) ? { ...s, destination: "session" } : s));
      }
      return allow;
    }
    const answer: Json = { behavior: "deny", message: decision.message ?? "The host denied this tool use." };
    if (decision.interrupt === true) answer.interrupt = true;
    return answer;
  },
  controlNeedsSession: false,
  permissionBeforeToolUse: false,
  appliesPermissionSuggestions: true,
  costOf: (result) => count(result.total_cost_usd),
  projectSlug: (cwd) => cwd.replace(/[^a-zA-Z0-9]/g, "-"),
  failureCode(result, assistantError) {
    if (assistantError === "authentication_failed" || result.api_error_status === 401) return { code: "auth_required", retryable: false };
    return undefined;
  },
};

/** Signed in when the reply names a credential source or an external provider. */
function authOf(account: Json | undefined): AuthReport | undefined {
  if (!account) return undefined;
  const apiKeySource = str(account.apiKeySource);
  const tokenSource = str(account.tokenSource);
  const provider = str(account.apiProvider);
  const email = str(account.email);
  const method =
    apiKeySource && apiKeySource !== "none"
      ? apiKeySource
      : tokenSource && tokenSource !== "none"
        ? tokenSource
        : provider && provider !== "firstParty"
          ? provider
          : email
            ? "login"
            : undefined;
  if (method === undefined) return undefined;
  const report: AuthReport = { signedIn: true, method };
  if (email) report.account = email;
  const plan = str(account.subscriptionType);
  if (plan) report.plan = plan;
  return report;
}

function modelOf(entry: Json): ModelInfo {
  const model: ModelInfo = { id: str(entry.value) ?? str(entry.id) ?? "" };
  const displayName = str(entry.displayName);
  if (displayName) model.displayName = displayName;
  const description = str(entry.description);
  if (description) model.description = description;
  if (model.id === "default") model.isDefault = true;
  if (Array.isArray(entry.supportedEffortLevels)) {
    model.efforts = entry.supportedEffortLevels.filter((e): e is string => typeof e === "string").map((id) => ({ id }));
  }
  return model;
}
