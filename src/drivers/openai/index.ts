/**
 * `agent-adaptor/drivers/openai`: an in-process coding agent over any OpenAI-compatible endpoint
 * (Chat Completions or Responses) on the official `openai` client — built-in workspace tools,
 * approvals, MCP servers and host tools, threads kept in the driver's `stateDir` (resume, fork),
 * steer and follow-up, and recorded Codex or Claude Code sessions imported as threads. For hosts
 * with no agent CLI installed.
 */
export { openai } from "./driver.js";
export type { OpenAIDriver, OpenAIThreadTitleSource } from "./driver.js";
export { defaultStateDir } from "./config.js";
export type { OpenAIApi, OpenAIConfig, OpenAIToolsConfig } from "./config.js";
export { importTranscript } from "./import/index.js";
export type { ImportedTranscript, ImportTranscriptOptions, TranscriptFormatName, TranscriptImportAgent, TranscriptImportThreadStore } from "./import/index.js";
