/**
 * `agent-adaptor/drivers/pi`: Pi (`@mariozechner/pi-coding-agent`) over `pi --mode rpc`, with
 * native steer and follow-up, session resume and fork, and an optional provider binding written
 * into an isolated `models.json`.
 */
export { pi } from "./driver.js";
export type { PiDriver, PiProcessStats } from "./driver.js";
export { PI_THINKING_LEVELS } from "./config.js";
export type { PiConfig, PiModelApi, PiProviderBinding } from "./config.js";
export type { PiErrorCode, PiNoticeCode } from "./codes.js";
export { PI_IMAGE_MEDIA_TYPES } from "./run.js";
