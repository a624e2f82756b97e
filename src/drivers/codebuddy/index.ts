/**
 * `agent-adaptor/drivers/codebuddy`: Tencent's CodeBuddy Code driven over its stream-json control
 * protocol, a dialect of Claude Code's, one CLI process per run.
 *
 * @example
 * ```ts
 * import { createAgent } from "agent-adaptor";
 * import { codebuddy } from "agent-adaptor/drivers/codebuddy";
 *
 * const agent = createAgent(codebuddy({ provider: { baseUrl: "http://127.0.0.1:8080/v1", apiKeyEnv: "MY_KEY" } }));
 * ```
 */
import type { ProviderBinding, StreamJsonDriverConfig } from "../stream-json/config.js";
import { createStreamJsonDriver, type StreamJsonDriver } from "../stream-json/driver.js";
import { codebuddyDialect } from "./dialect.js";

/** Configuration of {@link codebuddy}. */
export interface CodebuddyConfig extends StreamJsonDriverConfig {
  /**
   * An OpenAI Chat Completions–compatible endpoint: the child gets `CODEBUDDY_BASE_URL` (it posts
   * to `<baseUrl>/chat/completions`) and, from the host variable `apiKeyEnv`, `CODEBUDDY_API_KEY`.
   */
  provider?: ProviderBinding;
}

/** The CodeBuddy Code driver. */
export type CodebuddyDriver = StreamJsonDriver;

/** Creates a CodeBuddy Code driver. The config is captured now. */
export function codebuddy(config: CodebuddyConfig = {}): CodebuddyDriver {
  return createStreamJsonDriver(codebuddyDialect, config);
}

export * from "../stream-json/preset.js";
