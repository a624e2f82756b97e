/**
 * The scripted model server: a deterministic, loopback-only fake of the OpenAI Responses,
 * OpenAI Chat Completions, Anthropic Messages and Gemini APIs for testing real provider CLIs
 * (and hosts' own integrations) without paid calls.
 */
export { startModelServer } from "./server.js";
export type { ModelServer, ModelServerOptions } from "./server.js";
export {
  DEFAULT_MODEL_ID,
  auxiliaryRuleSchema,
  faultSchema,
  loadModelScript,
  matchRuleSchema,
  modelScriptSchema,
  parseModelScript,
  replySchema,
  toolCallSchema,
  turnSchema,
  usageSchema,
} from "./script.js";
export type {
  ModelScript,
  ScriptAuxiliaryRule,
  ScriptFault,
  ScriptMatchRule,
  ScriptReply,
  ScriptToolCall,
  ScriptTurn,
  ScriptUsage,
} from "./script.js";
export { REDACTED, lastUserText, systemText } from "./capture.js";
export { readSse } from "./sse.js";
export type { SseEvent, SseReadResult } from "./sse.js";
export { runModelServerCommand } from "./command.js";
export type { ModelServerCommandArgs, ModelServerCommandIo } from "./command.js";
export type {
  AppliedFault,
  CapturedDialect,
  CapturedMessage,
  CapturedPart,
  CapturedRequest,
  CapturedSource,
  ModelDialect,
} from "./types.js";
