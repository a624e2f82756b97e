/**
 * Inspection of an OpenAI-compatible endpoint without a prompt: the client package (environment),
 * `GET {baseURL}/models` (models, and whether the key is accepted), the configured defaults
 * (configuration) and the agent's MCP servers as configured (none is started). Commands, skills,
 * quota and profiles do not exist on this API.
 */
import type { InspectRequest, InspectResponse } from "../../driver/types.js";
import { evidence, evidenceClock } from "../../driver/kit/evidence.js";
import { allUnavailable, observed, unavailable, unsupported } from "../../driver/observations.js";
import { ExecutableNotFoundError } from "../../errors/index.js";
import { redactThenClip } from "../../redact/clip.js";
import { createRedactor } from "../../redact/redact.js";
import type { AuthReport, Evidence, ModelInfo } from "../../inspect/types.js";
import { createClient, loadOpenAI, type OpenAIImporter } from "./client.js";
import { configSecrets, readApiKey, type ResolvedOpenAIConfig } from "./config.js";

export const TRANSPORT = "openai (in-process HTTP)";

/** Characters of a failed listing's error a panel's reason keeps. */
const MAX_REASON_CHARS = 200;

/** The installed client's version (its package exports `./version`, not `./package.json`). */
async function clientVersion(): Promise<string | undefined> {
  try {
    const { VERSION } = (await import("openai/version")) as { VERSION?: unknown };
    return typeof VERSION === "string" ? VERSION : undefined;
  } catch {
    return undefined;
  }
}

type Listed = { ok: true; ids: string[] } | { ok: false; status?: number; message: string; malformed?: true };

async function listModels(config: ResolvedOpenAIConfig, importer: OpenAIImporter | undefined, apiKey: string | undefined, signal: AbortSignal): Promise<Listed> {
  const client = createClient(await loadOpenAI(importer), { ...config, requestTimeoutMs: Math.min(config.requestTimeoutMs, 30_000) }, apiKey);
  try {
    const { data: page, response } = await client.models.list({ signal }).withResponse();
    // The client hands a body of another type over as text, which reads as an empty list: a web
    // page at baseURL would be reported as an endpoint offering no models.
    const contentType = response.headers.get("content-type") ?? "";
    if (!/\bjson\b/i.test(contentType)) {
      const type = contentType === "" ? "no content type" : `content type ${contentType.split(";")[0]!.trim()}`;
      return { ok: false, malformed: true, message: `the endpoint answered the model listing with ${type}, not JSON; check that baseURL is the API's base (e.g. http://host:port/v1)` };
    }
    const ids: string[] = [];
    for await (const model of page) ids.push(model.id);
    return { ok: true, ids };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    const message = error instanceof Error ? error.message : String(error);
    // Redacted before it is cut: a key the cut splits would keep its front, which core's redaction of
    // the whole key no longer finds.
    const redactor = createRedactor({ secrets: configSecrets(config) });
    return { ok: false, ...(typeof status === "number" ? { status } : {}), message: redactThenClip(message, (text) => redactor.redactText(text), MAX_REASON_CHARS) };
  }
}

/** The listing's failure as a panel reason: a body that is not JSON, else the endpoint's silence. */
function listingFailure<T>(listed: Extract<Listed, { ok: false }>, record: Evidence) {
  if (listed.malformed) return unavailable<T>("malformed_response", listed.message, [record]);
  return unavailable<T>("provider_error", `the endpoint did not answer the model listing: ${listed.message}`, [record]);
}

function authPanel(apiKey: string | undefined, listed: Listed, record: Evidence): InspectResponse["auth"] {
  if (!listed.ok && (listed.status === 401 || listed.status === 403)) return unavailable("auth_required", `the endpoint refused the credentials (HTTP ${listed.status})`, [record]);
  if (!listed.ok) return listingFailure(listed, record);
  const report: AuthReport = apiKey !== undefined ? { signedIn: true, method: "api_key" } : { signedIn: false, required: false };
  return observed(report, [record]);
}

function modelsPanel(config: ResolvedOpenAIConfig, listed: Listed, record: Evidence): InspectResponse["models"] {
  if (listed.ok) {
    const models: ModelInfo[] = listed.ids.map((id) => ({ id, ...(id === config.model ? { isDefault: true } : {}), ...(id === config.model && config.contextWindow !== undefined ? { contextWindow: config.contextWindow } : {}) }));
    return observed(models, [record]);
  }
  if (listed.status === 404 || listed.status === 405) return unsupported("the endpoint has no model listing", [record]);
  if (listed.status === 401 || listed.status === 403) return unavailable("auth_required", `the endpoint refused the credentials (HTTP ${listed.status})`, [record]);
  return listingFailure(listed, record);
}

export async function inspectEndpoint(request: InspectRequest, config: ResolvedOpenAIConfig, importer: OpenAIImporter | undefined, signal: AbortSignal): Promise<InspectResponse> {
  signal.throwIfAborted();
  try {
    await loadOpenAI(importer);
  } catch (error) {
    if (error instanceof ExecutableNotFoundError) return allUnavailable("executable_not_found", error.summary);
    throw error;
  }
  const apiKey = readApiKey(config);
  const version = await clientVersion();
  const local = evidence({ transport: TRANSPORT, method: "config", durationMs: 0, providerVersion: version });
  // A key variable named but unset: a run would fail before sending anything, so the listing is
  // not sent either (keyless it could only be refused, or list models the key would not reach).
  const keyMissing = config.apiKeyEnv !== undefined && apiKey === undefined;
  const started = evidenceClock();
  const listed = keyMissing ? undefined : await listModels(config, importer, apiKey, signal);
  signal.throwIfAborted();
  const record = evidence({ transport: TRANSPORT, method: "GET /models", scope: "account", startedAt: started, providerVersion: version });
  const missingKey = <T>() => unavailable<T>("auth_required", `${config.apiKeyEnv} is not set (or empty): the model listing was not sent without the key`, [local]);
  const secrets = configSecrets(config);
  const none = (what: string) => unsupported<never>(`an OpenAI-compatible endpoint has no ${what}`, [], "not_applicable");
  return {
    environment: observed({ ...(version !== undefined ? { version } : {}), platform: process.platform, agentName: "openai" }, [local]),
    models: listed === undefined ? missingKey() : modelsPanel(config, listed, record),
    commands: none("commands"),
    skills: none("skills"),
    mcp: observed({ servers: request.resources.mcp.map((s) => ({ name: s.name, status: "configured" })) }, [local]),
    quota: none("quota"),
    profile: none("profiles"),
    configuration: observed({ ...(config.model !== undefined ? { model: config.model } : {}), ...(config.effort !== undefined ? { effort: config.effort } : {}), modelProvider: config.api }, [local]),
    auth: listed === undefined ? missingKey() : authPanel(apiKey, listed, record),
    // The key and the header values: a listing's failure may echo them.
    ...(secrets.length > 0 ? { secrets } : {}),
  };
}
