/**
 * The types each stream-json preset's entry point (`drivers/claude`, `drivers/codebuddy`) exports
 * beside its driver: one list, so the presets' public surfaces cannot drift apart.
 */
export type { StreamJsonErrorCode, StreamJsonNoticeCode } from "./codes.js";
export type { ProviderBinding, SettingSource, StreamJsonDriverConfig } from "./config.js";
export type { StreamJsonDriver } from "./driver.js";
