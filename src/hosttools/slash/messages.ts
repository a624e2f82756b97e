/**
 * Every string the slash tool shows an operator, as one table of functions a host may override
 * entry by entry (`messages` option) to localize or restyle the output. Numbers and times reach
 * these functions already formatted for the `locale` option.
 */
import { ConfigError } from "../../errors/index.js";
import type { GateState, SessionState } from "../../session/types.js";
import type { ReconfigureMechanism } from "./reconfigure.js";
import type { SlashCollision, SlashCommandName } from "./vocabulary.js";

/** What `/status` shows, formatted. */
export interface StatusView {
  sessionId: string;
  state: SessionState;
  /** Why a sleeping session sleeps. */
  sleepReason?: string;
  /** The thread the session drives now. */
  threadId: string;
  /** The driver's display name. */
  driver: string;
  /** The model of the next runs (`default` without a value: the provider's own, not read for `/status`). */
  model: SettingView;
  effort: SettingView;
  /** The {@link SlashMessages.gate} text. */
  gate: string;
  /** How many prompts wait in the inbox. */
  queued: number;
  /** The run in flight, if any. */
  inFlightRunId?: string;
  /** Spend so far and the ceilings, formatted (`"$0.12"`, `"1,234"`). */
  spentUsd: string;
  spentTokens: string;
  /** The configured ceilings by `Budget` key (`sessionUsd`, `runUsd`, `sessionTokens`, `runTokens`), formatted. */
  ceilings: { name: string; value: string }[];
  /** The `Budget` key of a tripped ceiling: new runs are refused until it is raised or reset. */
  tripped?: string;
  /** The session's last event-log sequence number. */
  lastSeq: number;
}

/** A model or effort as the session stands: set by the session, or the agent's default. */
export interface SettingView {
  /** The model or effort id; absent when neither the session nor the provider names one. */
  value?: string;
  /** `session`: set for this session (`/model`, the session's run options); `default`: the agent's or provider's. */
  source: "session" | "default";
}

/** One line of `/help`. */
export interface HelpEntry {
  /** The command's name, without the slash. */
  name: string;
  /** {@link SlashMessages.argumentHint} of the command. */
  argumentHint: string;
  /** {@link SlashMessages.summary} of the command. */
  summary: string;
  /** The host's aliases of the command, in the order given. */
  aliases: readonly string[];
  /** Set when the name is also a native command of the provider. */
  collision?: SlashCollision["resolution"];
}

/**
 * Every user-visible string of the slash tool. Each entry is a function of structured values, so a
 * host can localize word order and plurals; `messages` replaces any subset of them.
 */
export interface SlashMessages {
  /** One line saying what a command does (`/help`). */
  summary(command: SlashCommandName): string;
  /** The arguments a command takes (`""` when none; `/help`, usage answers). */
  argumentHint(command: SlashCommandName): string;
  /** The whole `/help` answer: the listed commands in order, then the provider's own commands or why they are not known. */
  help(entries: readonly HelpEntry[], native: { known: true; names: readonly string[] } | { known: false; reason: string }): string;
  /** Arguments that do not fit `command`, typed as `name` (an alias or the command's name). */
  usage(command: SlashCommandName, name: string, argumentHint: string): string;
  /** A `/word` that is neither portable nor in the provider's known list. */
  unknownCommand(name: string): string;
  /** `reject` refused `name`; `aliases`: the aliases of `command` that are no native command. */
  collisionRefused(name: string, command: SlashCommandName, aliases: readonly string[]): string;
  /** Refused while a run is in flight. */
  busy(command: SlashCommandName): string;
  /** The provider or the session has no such feature; `reason` as the error said it. */
  unsupported(command: SlashCommandName, reason: string): string;
  /** A session, thread or agent call failed; `code`: the error's code when it has one. */
  failed(command: SlashCommandName, message: string, code?: string): string;
  /** `/new`, `/resume` or `/fork` made another session current. */
  switched(reason: "new" | "resume" | "fork", sessionId: string, threadId: string, fromThreadId?: string): string;
  /** `/resume` of a thread the store does not hold. */
  threadNotFound(threadId: string): string;
  /** `/model` or `/effort` without arguments; `offered`: the provider's list when inspection has one. */
  settingShown(setting: "model" | "effort", view: SettingView, offered: readonly string[] | undefined): string;
  /** `/model` or `/effort` changed the next runs (`value` undefined: reset); `how`: the {@link SlashMessages.mechanism} text. */
  settingChanged(setting: "model" | "effort", value: string | undefined, how: string, runInFlight: boolean): string;
  /** A model the provider's list does not name (set anyway: providers accept more than they list). */
  modelNotListed(model: string, offered: readonly string[]): string;
  /** An effort the model in effect does not list (refused). */
  effortNotOffered(effort: string, model: string, offered: readonly string[]): string;
  /** How a changed model or effort reaches the provider. */
  mechanism(mechanism: ReconfigureMechanism): string;
  /** The whole `/status` answer. */
  status(view: StatusView): string;
  /** The admission gate in a few words (used inside `status`). */
  gate(gate: GateState): string;
  /** `/clear` started a fresh conversation on thread `threadId`. */
  cleared(threadId: string): string;
  /** `/compact` finished its compaction turn. */
  compacted(): string;
  /** `/goal` without arguments (`goal` undefined: none set). */
  goalShown(goal: GoalView | undefined): string;
  /** A goal sub-command's result; `existed`: for `clear`, whether there was a goal. */
  goalChanged(action: "set" | "pause" | "resume" | "clear" | "budget", goal: GoalView | undefined, existed: boolean): string;
}

/** A goal as `/goal` shows it, formatted. */
export interface GoalView {
  objective: string;
  /** The provider's goal status (`active`, `paused`, `blocked`, `usage_limited`, `budget_limited`, `complete`). */
  status: string;
  /** Tokens the provider counted against the goal, formatted. */
  tokensUsed: string;
  /** The provider's token budget for the goal, formatted; absent: none. */
  tokenBudget?: string;
  /** Time the provider counted against the goal, formatted. */
  timeUsed: string;
}

const SUMMARIES: Record<SlashCommandName, string> = {
  new: "Start a new conversation in a new session",
  resume: "Continue a stored conversation",
  fork: "Continue a copy of this conversation in a new session",
  model: "Show or set the model of the next runs",
  effort: "Show or set the reasoning effort of the next runs",
  status: "Show the session, its settings, queue and spend",
  help: "List the commands",
  clear: "Start a fresh provider conversation in this session",
  compact: "Compact the conversation with the provider's own compaction",
  goal: "Show or change the conversation's goal",
};

const HINTS: Record<SlashCommandName, string> = {
  new: "",
  resume: "<thread>",
  fork: "",
  model: "[<model> | --reset]",
  effort: "[<level> | --reset]",
  status: "",
  help: "",
  clear: "",
  compact: "",
  goal: "[<objective> | set <objective> | pause | resume | clear | budget <tokens> | budget --none]",
};

const MECHANISMS: Record<ReconfigureMechanism, string> = {
  config_option: "through the agent's session config option, confirmed by reading it back before the prompt is sent",
  turn_setting: "as the turn's own setting on this conversation",
  session_command: "by the provider's own command on this conversation before the prompt",
  relaunch: "by restarting the provider with it; the conversation is resumed natively",
  next_run: "with the next run's options",
};

/** The English table every key falls back to. */
export const DEFAULT_SLASH_MESSAGES: SlashMessages = {
  summary: (command) => SUMMARIES[command],
  argumentHint: (command) => HINTS[command],
  help: (entries, native) => {
    const lines = ["Commands:"];
    for (const entry of entries) {
      const head = `  /${entry.name}${entry.argumentHint ? ` ${entry.argumentHint}` : ""}`;
      const aliases = entry.aliases.length > 0 ? ` (also ${entry.aliases.map((a) => `/${a}`).join(", ")})` : "";
      const collision = entry.collision === undefined ? "" : ` [${COLLISION_NOTES[entry.collision]}]`;
      lines.push(`${head} — ${entry.summary}${aliases}${collision}`);
    }
    if (native.known) {
      if (native.names.length > 0) lines.push(`Provider commands, sent as typed: ${native.names.map((n) => `/${n}`).join(", ")}`);
    } else {
      lines.push(`The provider's own commands are not known here (${native.reason}); other /commands are sent to it as typed.`);
    }
    return lines.join("\n");
  },
  usage: (_command, name, hint) => `Usage: /${name}${hint ? ` ${hint}` : ""}`,
  unknownCommand: (name) => `Unknown command /${name}. /help lists the commands.`,
  collisionRefused: (name, command, aliases) =>
    `/${name} is both a portable command and one of the provider's own; it is refused to avoid running the wrong one.` +
    (aliases.length > 0 ? ` Use ${aliases.map((a) => `/${a}`).join(" or ")} for the portable /${command}.` : ""),
  busy: (command) => `A run is in flight; /${command} waits until it ends (or interrupt it first).`,
  unsupported: (command, reason) => `/${command} is not available here: ${reason}`,
  failed: (command, message, code) => `/${command} failed${code ? ` (${code})` : ""}: ${message}`,
  switched: (reason, sessionId, threadId, fromThreadId) =>
    reason === "new"
      ? `New session ${sessionId} (thread ${threadId}).`
      : reason === "resume"
        ? `Resumed thread ${threadId} in session ${sessionId}.`
        : `Forked thread ${fromThreadId ?? "?"} into thread ${threadId}; session ${sessionId} continues the copy.`,
  threadNotFound: (threadId) => `No stored thread ${threadId}.`,
  settingShown: (setting, view, offered) => {
    const current = view.value === undefined ? "the provider's default" : view.source === "default" ? `${view.value} (default)` : view.value;
    const list = offered === undefined ? "" : offered.length > 0 ? `\nOffered: ${offered.join(", ")}` : "";
    return `${setting === "model" ? "Model" : "Effort"}: ${current}${list}`;
  },
  settingChanged: (setting, value, how, runInFlight) => {
    const what = setting === "model" ? "Model" : "Effort";
    const head = value === undefined ? `${what} reset to the default` : `${what} set to ${value}`;
    const when = runInFlight ? "from the next run (the run in flight keeps its own)" : "from the next run";
    return `${head}; applied ${when}, ${how}.`;
  },
  modelNotListed: (model, offered) => `Note: ${model} is not in the provider's model list (${offered.join(", ")}); the provider may still accept it.`,
  effortNotOffered: (effort, model, offered) => `${model} does not offer effort ${effort} (offered: ${offered.join(", ")}).`,
  mechanism: (mechanism) => MECHANISMS[mechanism],
  status: (view) => {
    const lines = [
      `Session ${view.sessionId}: ${view.state}${view.sleepReason ? ` (${view.sleepReason})` : ""}`,
      `Thread: ${view.threadId}`,
      `Driver: ${view.driver}`,
      `Model: ${view.model.value ?? "provider default"}${view.model.source === "default" && view.model.value ? " (default)" : ""}`,
      `Effort: ${view.effort.value ?? "provider default"}${view.effort.source === "default" && view.effort.value ? " (default)" : ""}`,
      `Input: ${view.gate}; ${view.queued} queued${view.inFlightRunId ? `; run ${view.inFlightRunId} in flight` : ""}`,
      `Spent: ${view.spentUsd}, ${view.spentTokens} tokens`,
    ];
    if (view.ceilings.length > 0) lines.push(`Ceilings: ${view.ceilings.map((c) => `${c.name} ${c.value}`).join(", ")}`);
    if (view.tripped) lines.push(`Ceiling reached: ${view.tripped}; new runs are refused until it is raised`);
    return lines.join("\n");
  },
  gate: (gate) => (gate.open ? "open" : `${gate.by === "hold" ? "held" : "paused"} (${gate.reason})`),
  cleared: (threadId) => `Started a fresh provider conversation (thread ${threadId}).`,
  compacted: () => "Compacted the conversation.",
  goalShown: (goal) => (goal === undefined ? "No goal is set." : goalLine(goal)),
  goalChanged: (action, goal, existed) => {
    if (action === "clear") return existed ? "Goal cleared." : "There was no goal to clear.";
    return goal === undefined ? "No goal is set." : goalLine(goal);
  },
};

const COLLISION_NOTES: Record<SlashCollision["resolution"], string> = {
  native: "the provider's own runs",
  portable: "replaces the provider's own",
  refused: "refused: also the provider's own",
};


function goalLine(goal: GoalView): string {
  const budget = goal.tokenBudget === undefined ? "" : ` of ${goal.tokenBudget}`;
  return `Goal (${goal.status}): ${goal.objective}\nUsed: ${goal.tokensUsed}${budget} tokens, ${goal.timeUsed}`;
}

/** The defaults with the host's replacements. */
export function resolveMessages(overrides: Partial<SlashMessages> | undefined): SlashMessages {
  const merged: SlashMessages = { ...DEFAULT_SLASH_MESSAGES };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (!(key in DEFAULT_SLASH_MESSAGES)) throw new ConfigError(`messages.${key} is not a slash message`);
    if (typeof value !== "function") throw new ConfigError(`messages.${key} must be a function`);
    (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}
