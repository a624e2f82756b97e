/**
 * CodeBuddy Code's dialect of the stream-json control protocol (CLI 2.117.x). What differs from
 * Claude Code, each handled here and tested:
 *
 * - The permission answer is `{allowed: true, updatedInput}` / `{allowed: false, reason}`. A
 *   Claude-shaped `{behavior: "allow"}` is silently read as a denial.
 * - `can_use_tool` is sent without any flag, and before the assistant message holding the call.
 * - Control requests (interrupt included) fail with "Session not found" until the first user
 *   message has opened a session.
 * - An interrupt ends the turn with a *success* result (`result: ""`).
 * - The `initialize` reply echoes the raw API key (`account.token`) and names the account after
 *   its tail: both are registered as secrets and never reported.
 * - The model backend is OpenAI Chat Completions; a custom endpoint is `CODEBUDDY_BASE_URL` +
 *   `CODEBUDDY_API_KEY`.
 * - `mcp_status` is unknown to the CLI; `total_cost_usd` is 0 for custom models (not a cost).
 * - Sessions live in `<config dir>/projects/<cwd without its leading "/", "/" as "-">/<id>.jsonl`.
 */
import type { InspectResponse } from "../../driver/types.js";
import type { AuthReport, ConfigurationReport, ModelInfo } from "../../inspect/types.js";
import { NODE_NETWORK_ENV, type StreamJsonDialect } from "../stream-json/dialect.js";
import { observed, unavailable } from "../../driver/observations.js";
import { commandsPanel, mcpPanel, NO_PROFILE, NO_QUOTA, NO_SKILLS, notLoggedIn, outputStyles, unsupported } from "../stream-json/panels.js";
import { count, isObject, str, type Json } from "../stream-json/wire.js";
import { CODEBUDDY_INSTALL, CODEBUDDY_LOGIN, codebuddyVersion, defaultCodebuddyExecutable } from "./locate.js";

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export const codebuddyDialect: StreamJsonDialect = {
  id: "codebuddy",
  name: "CodeBuddy Code",
  transport: "codebuddy stream-json",
  inputs: {
    image: { modes: ["native"], mediaTypes: IMAGE_TYPES },
    // Its backend is Chat Completions: a PDF block has no proven native path.
    file: { modes: [] },
    audio: { modes: [] },
  },
  features: { steer: "unsupported", resume: "native", fork: "native", approvals: true, userQuestions: true, structuredOutput: false, compact: "native" },
  resources: { instructions: true, hostTools: true, skills: true, mcp: { stdio: true, http: true } },

  defaultExecutable: defaultCodebuddyExecutable,
  install: CODEBUDDY_INSTALL,
  login: CODEBUDDY_LOGIN,
  executableVersion: codebuddyVersion,

  inheritEnv: [
    "CODEBUDDY_API_KEY",
    "CODEBUDDY_BASE_URL",
    "CODEBUDDY_CONFIG_DIR",
    ...NODE_NETWORK_ENV,
  ],
  defaultEnv: { DISABLE_AUTOUPDATER: "1" },
  configDirEnv: "CODEBUDDY_CONFIG_DIR",
  defaultConfigDirName: ".codebuddy",
  providerEnv: (binding, key) => ({ CODEBUDDY_BASE_URL: binding.baseUrl, CODEBUDDY_API_KEY: key }),

  protocolArgs: ["--input-format=stream-json", "--output-format=stream-json", "--verbose"],
  // No prompt-tool flag exists: can_use_tool is always sent.
  permissionArgs: (mode) => ["--permission-mode", mode],
  settingSourcesArgs: (sources) => ["--setting-sources", sources.length > 0 ? sources.join(",") : "none"],

  // Without `hasPrompt`, a process started with --resume replays the stored history, ending
  // with a `result` that would be taken for the turn's.
  initializeRequest: ({ appendSystemPrompt, hasPrompt }) => ({
    subtype: "initialize",
    ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    capabilities: { askUserQuestion: true },
    ...(hasPrompt ? { hasPrompt: true } : {}),
  }),

  async inspect(reply, initEvidence, context): Promise<InspectResponse> {
    const version = context.clock.stamp([initEvidence])[0]?.providerVersion;
    const init = context.clock.stamp([initEvidence]);
    const account = isObject(reply.account) ? reply.account : undefined;
    const secrets = account ? accountSecrets(account, context.knownSecrets) : [];
    const auth: AuthReport | undefined = account ? { signedIn: true, method: str(account.type) === "personal" && str(account.token) ? "api_key" : "login" } : undefined;
    const currentModel = str(reply.currentModelId);

    // The model list is a fact about the installed CLI, reported with or without an account:
    // a missing account is the auth panel's observation, not the models'.
    const models = Array.isArray(reply.models)
      ? observed(reply.models.filter(isObject).map((m) => modelOf(m, currentModel)), init)
      : unavailable<ModelInfo[]>("malformed_response", "initialize reported no model list", init);

    const configuration: ConfigurationReport = outputStyles(reply);
    if (currentModel) configuration.model = currentModel;

    const environment = { executablePath: context.executable, platform: process.platform, ...(version ? { version } : {}) };
    return {
      environment: observed(environment, init),
      models,
      commands: commandsPanel(reply.commands, init),
      skills: unsupported(NO_SKILLS),
      mcp: await mcpPanel(context),
      quota: unsupported(NO_QUOTA),
      profile: unsupported(NO_PROFILE),
      configuration: observed(configuration, init),
      auth: auth ? observed(auth, init) : notLoggedIn<AuthReport>("CodeBuddy Code", init),
      secrets,
    };
  },

  permissionAnswer(decision, request, updatedInput) {
    const answer: Json =
      decision.decision === "allow"
        ? { allowed: true, updatedInput: updatedInput ?? {} }
        : { allowed: false, reason: decision.message ?? "The host denied this tool use." };
    if (decision.decision === "deny" && decision.interrupt === true) answer.interrupt = true;
    if (request.tool_use_id !== undefined) answer.tool_use_id = request.tool_use_id;
    return answer;
  },
  controlNeedsSession: true,
  permissionBeforeToolUse: true,
  // 0 is what it reports for every custom model: no cost was reported.
  costOf: (result) => {
    const cost = count(result.total_cost_usd);
    return cost !== undefined && cost > 0 ? cost : undefined;
  },
  projectSlug: (cwd) => cwd.replace(/^[\\/]+/, "").replace(/[^a-zA-Z0-9]/g, "-"),
  failureCode(result) {
    const text = [...(Array.isArray(result.errors) ? result.errors : []), typeof result.result === "string" ? result.result : ""].join(" ");
    if (/authentication required|please use \/login/i.test(text)) return { code: "auth_required", retryable: false };
    return undefined;
  },
};

/**
 * The raw key the reply echoes (`token`), and every account field built from it (the account is
 * named `anonymous_<key tail>` for an API key).
 */
function accountSecrets(account: Json, known: readonly string[]): string[] {
  const secrets = new Set<string>();
  const token = str(account.token);
  const keys = [...known, ...(token ? [token] : [])];
  if (token) secrets.add(token);
  for (const value of Object.values(account)) {
    if (typeof value !== "string" || value.length < 4) continue;
    const tail = value.replace(/^anonymous_/, "");
    if (value !== tail && keys.some((k) => k.endsWith(tail))) secrets.add(value);
    if (keys.some((k) => k.length >= 8 && value.includes(k))) secrets.add(value);
  }
  return [...secrets];
}

function modelOf(entry: Json, current: string | undefined): ModelInfo {
  const model: ModelInfo = { id: str(entry.id) ?? str(entry.value) ?? "" };
  const name = str(entry.name) ?? str(entry.displayName);
  if (name) model.displayName = name;
  const description = str(entry.description);
  if (description) model.description = description;
  if (current !== undefined && model.id === current) model.isDefault = true;
  return model;
}
