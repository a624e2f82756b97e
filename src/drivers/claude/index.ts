/**
 * `agent-adaptor/drivers/claude`: Claude Code driven over its headless stream-json control
 * protocol (the protocol the Agent SDK speaks), one CLI process per run.
 *
 * @example
 * ```ts
 * import { createAgent } from "agent-adaptor";
 * import { claude } from "agent-adaptor/drivers/claude";
 *
 * const agent = createAgent(claude({ model: "sonnet" }), { workspace: "/repo" });
 * ```
 */
import type { ProviderBinding, StreamJsonDriverConfig } from "../stream-json/config.js";
import { createStreamJsonDriver, type StreamJsonDriver } from "../stream-json/driver.js";
import { claudeDialect } from "./dialect.js";

/** Configuration of {@link claude}. */
export interface ClaudeConfig extends StreamJsonDriverConfig {
  /**
   * An Anthropic Messages–compatible endpoint: the child gets `ANTHROPIC_BASE_URL` and, from the
   * host variable `apiKeyEnv`, `ANTHROPIC_API_KEY` (and no inherited `ANTHROPIC_AUTH_TOKEN`).
   */
  provider?: ProviderBinding;
}

/** The Claude Code driver. */
export type ClaudeDriver = StreamJsonDriver;

/** Creates a Claude Code driver. The config is captured now; later changes to the object have no effect. */
export function claude(config: ClaudeConfig = {}): ClaudeDriver {
  return createStreamJsonDriver(claudeDialect, config);
}

export * from "../stream-json/preset.js";
