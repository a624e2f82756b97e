/**
 * What a Pi run checks and sets before its prompt: the model (one Pi does not list fails here),
 * the thinking level, the image inputs (only for a model that declares image input) and Pi's
 * auto-retry, switched off. Every failure here is a `before_delivery` one.
 */
import { readFile } from "node:fs/promises";
import type { RunRequest } from "../../driver/types.js";
import { AuthRequiredError, ProviderError } from "../../errors/index.js";
import { InputError } from "../../input/errors.js";
import { arr, isObject, type Json } from "../../driver/json.js";
import { PI_THINKING_LEVELS } from "./config.js";
import { availableModels } from "./inspect.js";
import type { PiConnection } from "./rpc.js";

/** One Pi command sent before the prompt. */
type Command = (type: string, payload: Json) => Promise<unknown>;

/** Readies Pi for the run's prompt; resolves with the prompt's image parts. */
export async function prepareTurn(connection: PiConnection, request: RunRequest, signal: AbortSignal): Promise<Json[]> {
  const command: Command = (type, payload) => connection.request(type, payload, signal, "before_delivery");
  const models = await listedModels(connection, signal);
  const model = await selectModel(connection, request, models, command);
  await setThinkingLevel(request, command);
  const images = await imageParts(request, model);
  // Pi's retry is announced only after agent_end; off, agent_end ends the turn.
  await command("set_auto_retry", { enabled: false });
  return images;
}

/** The models Pi offers; none at all means no provider has credentials. */
async function listedModels(connection: PiConnection, signal: AbortSignal): Promise<Json[]> {
  const listed = await availableModels(connection, signal);
  if ("error" in listed) {
    throw listed.error instanceof Error && listed.error.message !== "malformed"
      ? listed.error
      : new ProviderError("pi answered get_available_models with something other than a model list", { code: "malformed_response", phase: "before_delivery" });
  }
  if (listed.models.length === 0) {
    throw new AuthRequiredError("pi lists no model: no provider has credentials configured", { remedy: "bind a provider (provider.baseUrl + provider.apiKeyEnv) or sign Pi in" });
  }
  return listed.models;
}

/** The run's model: the one it asks for (switched to when Pi has another selected), else Pi's current one. */
async function selectModel(connection: PiConnection, request: RunRequest, models: Json[], command: Command): Promise<Json> {
  let model = isObject(connection.state.model) ? connection.state.model : undefined;
  if (request.model !== undefined) {
    const wanted = findModel(models, request.model, model);
    if (wanted === undefined) {
      throw new ProviderError(`model "${request.model}" is not offered by pi (offered: ${models.map((m) => String(m.id)).join(", ")})`, {
        code: "config_value_unavailable",
        phase: "before_delivery",
      });
    }
    if (model === undefined || model.id !== wanted.id || model.provider !== wanted.provider) {
      model = (await command("set_model", { provider: wanted.provider, modelId: wanted.id })) as Json;
      if (!isObject(model) || model.id !== wanted.id) {
        throw new ProviderError(`pi did not confirm model "${request.model}"`, { code: "config_value_rejected", phase: "before_delivery" });
      }
    }
  }
  if (model === undefined) throw new AuthRequiredError("pi has no model selected", { remedy: "bind a provider or choose a model" });
  return model;
}

/**
 * The listed model a run asks for: `provider/id`, or a bare `id`, which names the current
 * provider's model when it lists one. A bound provider's model is every run's default (with a
 * bare id), and the process already runs it: another provider listing the same id must not
 * switch it away.
 */
export function findModel(models: readonly Json[], wanted: string, current?: Json): Json | undefined {
  const named = models.find((m) => `${String(m.provider)}/${String(m.id)}` === wanted);
  if (named !== undefined) return named;
  const sameId = models.filter((m) => m.id === wanted);
  return sameId.find((m) => current !== undefined && m.provider === current.provider) ?? sameId[0];
}

/** The run's effort, which must name one of Pi's thinking levels. */
async function setThinkingLevel(request: RunRequest, command: Command): Promise<void> {
  if (request.effort === undefined) return;
  if (!(PI_THINKING_LEVELS as readonly string[]).includes(request.effort)) {
    throw new ProviderError(`effort "${request.effort}" is not a Pi thinking level (${PI_THINKING_LEVELS.join(", ")})`, { code: "config_value_unavailable", phase: "before_delivery" });
  }
  await command("set_thinking_level", { level: request.effort });
}

/** The inputs as Pi image parts: Pi takes only images, natively, and only for a model with image input. */
async function imageParts(request: RunRequest, model: Json): Promise<Json[]> {
  const images: Json[] = [];
  for (const [index, input] of request.inputs.entries()) {
    if (input.kind !== "image" || input.deliveryMode !== "native") {
      throw new InputError("input_mode_unsupported", `pi takes only images, natively; a ${input.kind} input cannot be delivered`, { index, kind: input.kind, mediaType: input.mediaType, driver: "pi" });
    }
    if (!arr(model.input).includes("image")) {
      throw new InputError("input_mode_unsupported", `the model "${String(model.id)}" does not declare image input`, { index, kind: input.kind, mediaType: input.mediaType, driver: "pi" });
    }
    images.push({ type: "image", data: (await readFile(input.localPath)).toString("base64"), mimeType: input.mediaType });
  }
  return images;
}
