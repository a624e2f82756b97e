/**
 * `agent-adaptor/testing`: tools for testing integrations without paid calls — a scriptable
 * fake driver, the driver conformance kit and the scripted model server.
 */
export { fakeDriver } from "./fake-driver/driver.js";
export type { FakeDriver, FakeDriverOptions, FakeDriverProbe } from "./fake-driver/driver.js";
export type { FakeRunScript, FakeStep } from "./fake-driver/script.js";
export { runDriverConformance } from "./conformance.js";
export { runThreadStoreSuite } from "./thread-store-suite.js";
export type { ThreadStoreSuiteOptions } from "./thread-store-suite.js";
export type { ConformanceFixtures, ConformanceRunner } from "./conformance.js";
export {
  startModelServer,
  runModelServerCommand,
  parseModelScript,
  loadModelScript,
  modelScriptSchema,
  turnSchema,
  matchRuleSchema,
  replySchema,
  toolCallSchema,
  usageSchema,
  faultSchema,
  auxiliaryRuleSchema,
  lastUserText,
  systemText,
  readSse,
  DEFAULT_MODEL_ID,
} from "./model-server/index.js";
export type {
  AppliedFault,
  CapturedDialect,
  CapturedMessage,
  CapturedPart,
  CapturedRequest,
  CapturedSource,
  ModelDialect,
  ModelScript,
  ModelServer,
  ModelServerCommandArgs,
  ModelServerCommandIo,
  ModelServerOptions,
  ScriptAuxiliaryRule,
  ScriptFault,
  ScriptMatchRule,
  ScriptReply,
  ScriptToolCall,
  ScriptTurn,
  ScriptUsage,
  SseEvent,
  SseReadResult,
} from "./model-server/index.js";
