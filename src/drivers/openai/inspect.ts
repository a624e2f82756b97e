/**
 * Inspection of an OpenAI-compatible endpoint without a prompt: the client package (environment),
 * `GET {baseURL}/models` (models, and whether the key is accepted), the configured defaults
 * (configuration) and the agent's MCP servers as configured (none is started). Commands, skills,
 * quota and profiles do not exist on this API.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { InspectRequest, InspectResponse } from "../../driver/types.js";
import { evidence, evidenceClock } from "../../driver/kit/evidence.js";
import { allUnavailable, observed, unavailable, unsupported } from "../../driver/observations.js";
import { ExecutableNotFoundError } from "../../errors/index.js";
import type { AuthReport, Evidence, ModelInfo } from "../../inspect/types.js";
import { createClient, loadOpenAI, type OpenAIImporter } from "./client.js";
import { readApiKey, type ResolvedOpenAIConfig } from "./config.js";

export const TRANSPORT = "openai (in-process HTTP)";

async function clientVersion(): Promise<string | undefined> {
  try {
    const path = createRequire(import.meta.url).resolve("openai/package.json");
    return (JSON.parse(await readFile(path, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

type Listed = { ok: true; ids: string[] } | { ok: false; status?: number; message: string };

async function listModels(config: ResolvedOpenAIConfig, importer: OpenAIImporter | undefined, apiKey: string | undefined, signal: AbortSignal): Promise<Listed> {
  const client = createClient(await loadOpenAI(importer), { ...config, requestTimeoutMs: Math.min(config.requestTimeoutMs, 30_000) }, apiKey);
  try {
    const ids: string[] = [];
    for await (const model of client.models.list({ signal })) ids.push(model.id);
    return { ok: true, ids };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    return { ok: false, ...(typeof status === "number" ? { status } : {}), message: error instanceof Error ? error.message : String(error) };
  }
}

function authPanel(config: ResolvedOpenAIConfig, apiKey: string | undefined, listed: Listed, record: Evidence): InspectResponse["auth"] {
  if (config.apiKeyEnv !== undefined && apiKey === undefined) return unavailable("auth_required", `${config.apiKeyEnv} is not set`, [record]);
  if (!listed.ok && (listed.status === 401 || listed.status === 403)) return unavailable("auth_required", `the endpoint refused the credentials (HTTP ${listed.status})`, [record]);
  if (!listed.ok) return unavailable("provider_error", "the endpoint did not answer the model listing", [record]);
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
  return unavailable("provider_error", "the endpoint did not answer the model listing", [record]);
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
  const started = evidenceClock();
  const listed = await listModels(config, importer, apiKey, signal);
  signal.throwIfAborted();
  const version = await clientVersion();
  const record = evidence({ transport: TRANSPORT, method: "GET /models", scope: "account", startedAt: started, providerVersion: version });
  const local = evidence({ transport: TRANSPORT, method: "config", durationMs: 0, providerVersion: version });
  const none = (what: string) => unsupported<never>(`an OpenAI-compatible endpoint has no ${what}`, [], "not_applicable");
  return {
    environment: observed({ ...(version !== undefined ? { version } : {}), platform: process.platform, agentName: "openai" }, [local]),
    models: modelsPanel(config, listed, record),
    commands: none("commands"),
    skills: none("skills"),
    mcp: observed({ servers: request.resources.mcp.map((s) => ({ name: s.name, status: "configured" })) }, [local]),
    quota: none("quota"),
    profile: none("profiles"),
    configuration: observed({ ...(config.model !== undefined ? { model: config.model } : {}), ...(config.effort !== undefined ? { effort: config.effort } : {}), modelProvider: config.api }, [local]),
    auth: authPanel(config, apiKey, listed, record),
    ...(apiKey !== undefined ? { secrets: [apiKey] } : {}),
  };
}
