/**
 * `agent-adaptor/testing`: tools for testing integrations without paid calls — a scriptable
 * fake driver, the driver conformance kit, the scripted model server and the real-CLI lane
 * (the provider CLIs driven offline against that server).
 */
export { fakeDriver } from "./fake-driver/driver.js";
export type { FakeDriver, FakeDriverOptions, FakeDriverProbe } from "./fake-driver/driver.js";
export type { FakeRunScript, FakeStep } from "./fake-driver/script.js";
export { runDriverConformance } from "./conformance.js";
export { runThreadStoreSuite } from "./thread-store-suite.js";
export type { ThreadStoreSuiteOptions } from "./thread-store-suite.js";
export { runSessionStoreSuite } from "./session-store-suite.js";
export type { SessionStoreSuiteOptions } from "./session-store-suite.js";
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
export {
  realCliAvailability,
  realCliMode,
  REAL_CLI_ENV,
  CliProcess,
  isNotification,
  notificationsOf,
  spawnJsonRpcCli,
  isRealCliName,
  realCliSpec,
  REAL_CLI_NAMES,
  SCRIPTED_KEY_ENV,
  writeRealCliSettings,
  RealCliUnavailableError,
  withRealCli,
} from "./real-cli/index.js";
export type {
  RealCliAvailability,
  CliExit,
  CliSpawnOptions,
  WaitOptions,
  IncomingRequest,
  JsonRpcCli,
  JsonRpcCliOptions,
  RecordedRpcMessage,
  LocatedExecutable,
  RealCliName,
  RealCliProtocol,
  RealCliSpec,
  RealCliDirs,
  RealCliSettings,
  RealCliSettingsInput,
  RealCliContext,
  RealCliModelServer,
  RealCliScript,
  RealCliSpawnOptions,
  WithRealCliOptions,
} from "./real-cli/index.js";
