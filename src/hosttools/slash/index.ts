/**
 * `agent-adaptor/hosttools/slash`: portable slash commands (`/new`, `/resume`, `/fork`, `/model`,
 * `/effort`, `/status`, `/help`, `/clear`, `/compact`, `/goal`) for a session's input line. See
 * docs/hosttools-slash.md.
 */
export { createSlashCommands } from "./slash.js";
export { SLASH_COMMAND_ORDER } from "./registry.js";
export { DEFAULT_SLASH_MESSAGES } from "./messages.js";
export type { GoalView, HelpEntry, SettingView, SlashMessages, StatusView } from "./messages.js";
export type { ReconfigureMechanism } from "./reconfigure.js";
export type {
  CollisionPolicy,
  NativeCommandsView,
  OpenSessionRequest,
  ParsedSlash,
  SlashCollision,
  SlashCommandName,
  SlashCommands,
  SlashCommandsOptions,
  SlashDispatch,
  SlashHandled,
  SlashNotHandled,
  SlashOutcomeCode,
} from "./types.js";
