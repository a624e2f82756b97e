/**
 * The official `openai` client, loaded on first use: it is an optional peer dependency, so the
 * driver's module graph never imports it statically. A host without it gets an error naming the
 * install command, before anything is sent.
 */
import type { OpenAI } from "openai";
import { ExecutableNotFoundError } from "../../errors/index.js";
import type { ResolvedOpenAIConfig } from "./config.js";
import type { OpenAIImporter } from "./importer.js";

/** The client class (`openai`'s default export). */
export type OpenAIClass = typeof OpenAI;
/** One client instance. */
export type OpenAIClient = OpenAI;

export type { OpenAIImporter } from "./importer.js";

export const OPENAI_INSTALL = "npm install openai";

const defaultImporter: OpenAIImporter = () => import("openai");

let loaded: OpenAIClass | undefined;

/** The `openai` package when `importer` is the default and it was loaded already (no promise to wait for). */
export function loadedOpenAI(importer: OpenAIImporter = defaultImporter): OpenAIClass | undefined {
  return importer === defaultImporter ? loaded : undefined;
}

/** Loads the `openai` package; a missing package is `ExecutableNotFoundError` naming `npm install openai`. */
export async function loadOpenAI(importer: OpenAIImporter = defaultImporter): Promise<OpenAIClass> {
  if (importer === defaultImporter && loaded !== undefined) return loaded;
  try {
    const OpenAIClass = ((await importer()) as { default: OpenAIClass }).default;
    if (importer === defaultImporter) loaded = OpenAIClass;
    return OpenAIClass;
  } catch (cause) {
    throw new ExecutableNotFoundError("openai", "the openai package is not installed", { install: OPENAI_INSTALL, cause });
  }
}

/** A client for one run or inspection: no retries of its own (the loop retries before delivery only). */
export function createClient(OpenAIClass: OpenAIClass, config: ResolvedOpenAIConfig, apiKey: string | undefined): OpenAIClient {
  return new OpenAIClass({
    baseURL: config.baseURL,
    // The client refuses to start without a key: it gets a placeholder, and its Authorization
    // header is removed (no key configured means none is sent; a header of the config's wins).
    apiKey: apiKey ?? "no-key",
    // Not read from the host's OPENAI_ORG_ID / OPENAI_PROJECT_ID: they were sent as OpenAI-Organization
    // and OpenAI-Project to whatever endpoint baseURL names (`headers` can send them on purpose).
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: config.requestTimeoutMs,
    defaultHeaders: { ...(apiKey === undefined ? { Authorization: null } : {}), ...config.headers },
  });
}
