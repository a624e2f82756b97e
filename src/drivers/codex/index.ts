/**
 * `agent-adaptor/drivers/codex`: OpenAI Codex through `codex app-server` (JSON-RPC over stdio).
 */
export { codex, isCodexStandby, CODEX_IMAGE_MEDIA_TYPES } from "./driver.js";
export type { CodexDriver, CodexProcessStats, CodexStandby, CodexStandbyThreads } from "./driver.js";
export type { CodexConfig, CodexProviderConfig } from "./config.js";
export type { CodexErrorCode, CodexNoticeCode } from "./codes.js";
export { CODEX_PROTOCOL_VERSION } from "./protocol/version.js";
