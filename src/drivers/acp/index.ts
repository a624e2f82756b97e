/**
 * `agent-adaptor/drivers/acp`: any Agent Client Protocol agent over stdio, with presets for
 * Gemini CLI, Qwen Code, GitHub Copilot CLI, codex-acp, claude-agent-acp and Cursor.
 */
export { acp, isAcpStandby, ACP_IMAGE_MEDIA_TYPES, ACP_AUDIO_MEDIA_TYPES } from "./driver.js";
export type { AcpDriver, AcpProcessStats, AcpStandby } from "./driver.js";
export type { AcpConfig, AcpClientCapabilities, AcpPresetTraits, AcpUsageSource, AcpWatchdogs } from "./config.js";
export { claudeAcp, codexAcp, copilot, cursor, gemini, presetPackageVersions, qwen } from "./presets.js";
export type { AcpPresetOptions, AcpProviderBinding } from "./config.js";
export type { AcpErrorCode, AcpNoticeCode } from "./codes.js";
