/**
 * Every string the slash tool shows an operator, as one table of functions a host may override
 * entry by entry (`messages` option) to localize or restyle the output. Numbers and times reach
 * these functions already formatted for the `locale` option.
 */
import { ConfigError } from "../../errors/index.js";
import type { GateState, SessionState } from "../../session/types.js";
import type { ReconfigureMechanism } from "./reconfigure.js";
import type { SlashCollision, SlashCommandName, SlashOutcomeCode } from "./vocabulary.js";

/** What `/status` shows, formatted. */
export interface StatusView {
  sessionId: string;
  state: SessionState;
  sleepReason?: string;
  threadId: string;
  driver: string;
  model: SettingView;
  effort: SettingView;
  /** The {@link SlashMessages.gate} text. */
  gate: string;
  queued: number;
  inFlightRunId?: string;
  /** Spend so far and the ceilings, formatted (`"$0.12"`, `"1,234"`). */
  spentUsd: string;
  spentTokens: string;
  ceilings: { name: string; value: string }[];
  tripped?: string;
  lastSeq: number;
}

/** A model or effort as the session stands: set by the session, or the agent's default. */
export interface SettingView {
  value?: string;
  /** `session`: set for this session (`/model`, the session's run options); `default`: the agent's or provider's. */
  source: "session" | "default";
}

/** One line of `/help`. */
export interface HelpEntry {
  name: string;
  argumentHint: string;
  summary: string;
  aliases: readonly string[];
  /** Set when the name is also a native command of the provider. */
  collision?: SlashCollision["resolution"];
}

export interface SlashMessages {
  /** One line saying what a command does. */
  summary(command: SlashCommandName): string;
  /** The arguments a command takes (`""` when none). */
  argumentHint(command: SlashCommandName): string;
  help(entries: readonly HelpEntry[], native: { known: true; names: readonly string[] } | { known: false; reason: string }): string;
  usage(command: SlashCommandName, name: string, argumentHint: string): string;
  unknownCommand(name: string): string;
  collisionRefused(name: string, command: SlashCommandName, aliases: readonly string[]): string;
  busy(command: SlashCommandName): string;
  unsupported(command: SlashCommandName, reason: string): string;
  failed(command: SlashCommandName, message: string, code?: string): string;
  switched(reason: "new" | "resume" | "fork", sessionId: string, threadId: string, fromThreadId?: string): string;
  threadNotFound(threadId: string): string;
  settingShown(setting: "model" | "effort", view: SettingView, offered: readonly string[] | undefined): string;
  /** `how`: the {@link SlashMessages.mechanism} text of the way it reaches the provider. */
  settingChanged(setting: "model" | "effort", value: string | undefined, how: string, runInFlight: boolean): string;
  /** A model the provider's list does not name (set anyway: providers accept more than they list). */
  modelNotListed(model: string, offered: readonly string[]): string;
  effortNotOffered(effort: string, model: string, offered: readonly string[]): string;
  /** How a changed model or effort reaches the provider. */
  mechanism(mechanism: ReconfigureMechanism): string;
  status(view: StatusView): string;
  gate(gate: GateState): string;
  cleared(threadId: string): string;
  compacted(): string;
  goalShown(goal: GoalView | undefined): string;
  goalChanged(action: "set" | "pause" | "resume" | "clear" | "budget", goal: GoalView | undefined, existed: boolean): string;
  outcome(code: SlashOutcomeCode): string;
}

/** A goal as `/goal` shows it, formatted. */
export interface GoalView {
  objective: string;
  status: string;
  tokensUsed: string;
  tokenBudget?: string;
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
  outcome: (code) => OUTCOMES[code],
};

const COLLISION_NOTES: Record<SlashCollision["resolution"], string> = {
  native: "the provider's own runs",
  portable: "replaces the provider's own",
  refused: "refused: also the provider's own",
};

const OUTCOMES: Record<SlashOutcomeCode, string> = {
  unknown_command: "unknown command",
  usage: "wrong arguments",
  collision: "name collision",
  unsupported: "not supported",
  busy: "a run is in flight",
  not_found: "not found",
  failed: "failed",
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
