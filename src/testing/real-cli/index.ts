/**
 * The real-CLI lane: the provider CLIs installed from npm, driven end to end against the
 * scripted model server on 127.0.0.1, each in an isolated home with telemetry and auto-update off.
 */
export { realCliAvailability, realCliMode, REAL_CLI_ENV } from "./availability.js";
export type { RealCliAvailability } from "./availability.js";
export { CliProcess } from "./cli-process.js";
export type { CliExit, CliSpawnOptions, WaitOptions } from "./cli-process.js";
export { isNotification, notificationsOf, spawnJsonRpcCli } from "./json-rpc.js";
export type { IncomingRequest, JsonRpcCli, JsonRpcCliOptions, RecordedRpcMessage } from "./json-rpc.js";
export { isRealCliName, realCliSpec, REAL_CLI_NAMES } from "./registry.js";
export type { LocatedExecutable, RealCliName, RealCliProtocol, RealCliSpec } from "./registry.js";
export { SCRIPTED_KEY_ENV, writeRealCliSettings } from "./settings.js";
export type { RealCliDirs, RealCliSettings, RealCliSettingsInput } from "./settings.js";
export { RealCliUnavailableError, withRealCli } from "./with-real-cli.js";
export type {
  RealCliContext,
  RealCliModelServer,
  RealCliScript,
  RealCliSpawnOptions,
  WithRealCliOptions,
} from "./with-real-cli.js";
