/**
 * The HTTP side of the server: routes a request, records it, and writes the answer the
 * {@link ScriptPlayer} decided (applying faults), or an automatic answer for listing,
 * token-count and probe endpoints.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { estimateTokens } from "./auxiliary.js";
import { BodyError, readBody } from "./body.js";
import { redactHeaders } from "./capture.js";
import { anthropicCodec } from "./dialects/anthropic.js";
import { chatCodec } from "./dialects/chat.js";
import { openAiErrorBody } from "./dialects/codec.js";
import type { DialectCodec } from "./dialects/codec.js";
import { geminiCodec } from "./dialects/gemini.js";
import { listingDialect, modelEntry, modelList } from "./dialects/models.js";
import { responsesCodec } from "./dialects/responses.js";
import { ScriptPlayer } from "./player.js";
import { planReply } from "./reply.js";
import { sleep, writeJson, writeSse } from "./respond.js";
import type { StreamOptions } from "./respond.js";
import { route } from "./routes.js";
import type { Route } from "./routes.js";
import { scriptModels } from "./script.js";
import type { ModelScript, ScriptFault, ScriptReply } from "./script.js";
import type { AppliedFault, CapturedRequest, ModelDialect } from "./types.js";

const CODECS: Record<ModelDialect, DialectCodec> = {
  responses: responsesCodec,
  chat: chatCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
};

const STATUS_TEXT: Record<number, string> = {
  401: "invalid api key (scripted fault)",
  403: "permission denied (scripted fault)",
  429: "rate limit exceeded (scripted fault)",
  500: "internal server error (scripted fault)",
  503: "service unavailable (scripted fault)",
  529: "overloaded (scripted fault)",
};

function faultSummary(fault: ScriptFault): AppliedFault {
  const out: AppliedFault = {};
  if (fault.status !== undefined) out.status = fault.status;
  if (fault.cutAfterEvents !== undefined) out.cutAfterEvents = fault.cutAfterEvents;
  if (fault.delayMs !== undefined) out.delayMs = fault.delayMs;
  if (fault.dripMs !== undefined) out.dripMs = fault.dripMs;
  return out;
}

/** A signal aborted when the response closes (answered or client gone) or the server closes. */
function requestSignal(res: ServerResponse, closing: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  if (closing.aborted) abort();
  else closing.addEventListener("abort", abort, { once: true });
  res.once("close", () => {
    closing.removeEventListener("abort", abort);
    abort();
  });
  return controller.signal;
}

function errorEnvelope(dialect: CapturedRequest["dialect"] | "openai", status: number, message: string): unknown {
  return dialect === "anthropic" || dialect === "gemini"
    ? CODECS[dialect].errorBody(status, message)
    : openAiErrorBody(status, message);
}

function refuse(res: ServerResponse, record: CapturedRequest, status: number, body: unknown, error: string): void {
  record.status = status;
  record.error = error;
  writeJson(res, status, body);
}

export interface RequestHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  unusedTurns(): number[];
}

/** Builds the handler for one server: one script position, one request log. */
// long-function: the handler's helpers share one script player and request log; each helper is short
export function createRequestHandler(script: ModelScript, requests: CapturedRequest[], closing: AbortSignal, keepRequests?: number): RequestHandler {
  const models = scriptModels(script);
  let arrived = 0;
  const player = new ScriptPlayer(script);

  async function answer(
    res: ServerResponse,
    record: CapturedRequest,
    codec: DialectCodec,
    body: unknown,
    reply: ScriptReply | undefined,
    fault: ScriptFault | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const cut = fault?.cutAfterEvents !== undefined;
    record.status = fault?.status ?? (cut && !record.stream ? 0 : 200);
    if (fault) record.fault = faultSummary(fault);
    if (fault?.delayMs) await sleep(fault.delayMs, signal);
    if (signal.aborted) return;
    if (fault?.status !== undefined) {
      const message = STATUS_TEXT[fault.status] ?? `HTTP ${fault.status} (scripted fault)`;
      writeJson(res, fault.status, fault.body ?? codec.errorBody(fault.status, message), fault.headers);
      return;
    }
    if (cut && !record.stream) {
      res.socket?.destroy();
      return;
    }
    const plan = planReply(reply, { seq: record.index, model: record.model ?? models[0] ?? "", dialect: codec.dialect });
    if (!record.stream) {
      writeJson(res, 200, codec.encodeJson(plan, body));
      return;
    }
    const options: StreamOptions = { signal };
    if (fault?.dripMs !== undefined) options.dripMs = fault.dripMs;
    if (fault?.cutAfterEvents !== undefined) options.cutAfterEvents = fault.cutAfterEvents;
    await writeSse(res, codec.encodeStream(plan, body), options);
  }

  async function generate(
    res: ServerResponse,
    record: CapturedRequest,
    target: Extract<Route, { kind: "generate" }>,
    body: unknown,
    signal: AbortSignal,
  ): Promise<void> {
    const codec = CODECS[target.dialect];
    const normalized = codec.normalize(body, target);
    record.stream = normalized.stream;
    record.messages = normalized.messages;
    record.tools = normalized.tools;
    if (normalized.model !== undefined) record.model = normalized.model;
    const decision = player.decide(record.index, target.dialect, normalized, body);
    if (decision.kind === "refuse") {
      record.nth = decision.nth;
      const envelope = codec.errorBody(400, `scripted model server: ${decision.error}`, decision.code) as object;
      return refuse(res, record, 400, { ...envelope, script: decision.detail }, decision.error);
    }
    if (decision.auxiliaryReason !== undefined) {
      record.auxiliary = true;
      record.auxiliaryReason = decision.auxiliaryReason;
    }
    if (decision.nth !== undefined) record.nth = decision.nth;
    if (decision.matchedTurn !== undefined) record.matchedTurn = decision.matchedTurn;
    return answer(res, record, codec, body, decision.reply, decision.fault, signal);
  }

  function automatic(
    req: IncomingMessage,
    res: ServerResponse,
    record: CapturedRequest,
    target: Extract<Route, { kind: "probe" | "models" | "count_tokens" }>,
    body: unknown,
  ): void {
    record.auxiliary = true;
    if (target.kind === "probe") {
      record.auxiliaryReason = "probe";
      record.status = 200;
      return writeJson(res, 200, { ok: true }, {}, record.method);
    }
    if (target.kind === "count_tokens") {
      const normalized = CODECS[target.dialect].normalize(body, target);
      record.messages = normalized.messages;
      record.tools = normalized.tools;
      const model = normalized.model ?? target.model;
      if (model !== undefined) record.model = model;
      record.auxiliaryReason = "count-tokens";
      record.status = 200;
      const tokens = estimateTokens(body);
      return writeJson(res, 200, target.dialect === "anthropic" ? { input_tokens: tokens } : { totalTokens: tokens });
    }
    record.auxiliaryReason = "model-listing";
    const dialect = listingDialect(record.path, req.headers, record.query);
    if (target.id === undefined) {
      record.status = 200;
      return writeJson(res, 200, modelList(dialect, models, script.modelInfo));
    }
    const one = modelEntry(dialect, models, target.id, script.modelInfo);
    if (one === undefined) {
      const message = `model not found: ${target.id}`;
      return refuse(res, record, 404, errorEnvelope(dialect, 404, message), message);
    }
    record.model = target.id.replace(/^models\//, "");
    record.status = 200;
    return writeJson(res, 200, one);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const target = route(method, url.pathname);
    if (target.kind === "control") {
      req.resume();
      return writeJson(res, 200, target.what === "requests" ? requests : { unusedTurns: player.unusedTurns() });
    }
    const record: CapturedRequest = {
      index: arrived++,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      dialect:
        target.kind === "generate" || target.kind === "count_tokens"
          ? target.dialect
          : target.kind === "models"
            ? "models"
            : "other",
      stream: false,
      body: undefined,
      messages: [],
      tools: [],
      headers: redactHeaders(req.headers),
      status: 0,
    };
    requests.push(record);
    if (keepRequests !== undefined && requests.length > keepRequests) requests.splice(0, requests.length - keepRequests);

    let body: unknown;
    try {
      body = await readBody(req);
    } catch (error) {
      const status = error instanceof BodyError ? error.status : 400;
      const message = error instanceof Error ? error.message : String(error);
      return refuse(res, record, status, errorEnvelope(record.dialect, status, message), message);
    }
    record.body = body;

    switch (target.kind) {
      case "probe":
      case "models":
      case "count_tokens":
        return automatic(req, res, record, target, body);
      case "unknown": {
        const message = `no such endpoint: ${method} ${url.pathname}`;
        return refuse(res, record, 404, openAiErrorBody(404, message), message);
      }
      case "generate": {
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          const message = "request body must be a JSON object";
          return refuse(res, record, 400, errorEnvelope(record.dialect, 400, message), message);
        }
        return generate(res, record, target, body, requestSignal(res, closing));
      }
    }
  }

  return { handle, unusedTurns: () => player.unusedTurns() };
}
