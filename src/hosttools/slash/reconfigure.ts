/**
 * How a changed model or effort reaches the provider, by driver family (read from the public
 * `agent.driver.transport`). Every built-in driver keeps the conversation: the session passes the
 * setting as the next run's `model` / `effort`, and the driver applies it the provider's way.
 */
import type { DriverInfo } from "../../inspect/types.js";

/**
 * `config_option`: ACP `session/set_config_option`, read back before the prompt (a value the agent
 * does not offer or confirm fails the run before delivery); `turn_setting`: a per-turn field
 * (Codex `turn/start`, an OpenAI-compatible request); `session_command`: the provider's own
 * command on the session (Pi `set_model`, `set_thinking_level`); `relaunch`: the CLI is started
 * again with the flag and resumes the conversation (Claude Code, CodeBuddy); `next_run`: a driver
 * this tool does not know, given the setting with the next run.
 */
export type ReconfigureMechanism = "config_option" | "turn_setting" | "session_command" | "relaunch" | "next_run";

/** The mechanism of the driver behind `info`. */
export function reconfigureMechanism(info: DriverInfo): ReconfigureMechanism {
  const transport = info.transport.toLowerCase();
  if (transport.startsWith("acp")) return "config_option";
  if (transport.startsWith("codex app-server") || transport.startsWith("openai")) return "turn_setting";
  if (transport.startsWith("pi ")) return "session_command";
  if (transport.endsWith("stream-json")) return "relaunch";
  return "next_run";
}
