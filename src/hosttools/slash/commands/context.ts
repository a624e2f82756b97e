/** What every command handler gets, and what it hands back. */
import type { Agent } from "../../../agent/agent.js";
import { AdaptorError } from "../../../errors/index.js";
import type { Inspection } from "../../../inspect/types.js";
import type { Session } from "../../../session/types.js";
import type { Formatters } from "../format.js";
import type { SlashMessages } from "../messages.js";
import type { CommandNames } from "../registry.js";
import type { NativeCommandsView, OpenSessionRequest, ParsedSlash, SlashCollision, SlashCommandName, SlashOutcomeCode } from "../types.js";

export interface SlashContext {
  agent: Agent;
  messages: SlashMessages;
  format: Formatters;
  names: CommandNames;
  /** The session commands act on now. */
  current(): Session;
  /** Opens the session a switch goes to, makes it current and retires the previous one (per `closePrevious`). */
  switchTo(request: Omit<OpenSessionRequest, "previous">): Promise<{ session: Session; previous: Session }>;
  /** Whether switching would cancel a run in flight (the previous session is closed after a switch). */
  switchCancelsRuns(): boolean;
  /** The agent's inspection (read once), or the error it failed with. */
  inspection(): Promise<Inspection | Error>;
  native(): Promise<NativeCommandsView>;
  collisions(): Promise<SlashCollision[]>;
  /** Runs `task` now, or after the switching command before it when `command` switches or rebinds the session. */
  serial(command: SlashCommandName, task: () => Promise<CommandOutcome>): Promise<CommandOutcome>;
}

/** A command's outcome before the dispatcher adds the current session. */
export interface CommandOutcome {
  ok: boolean;
  output: string;
  code?: SlashOutcomeCode;
  error?: unknown;
  switchedFrom?: Session;
}

export type CommandHandler = (context: SlashContext, line: ParsedSlash & { command: SlashCommandName }) => Promise<CommandOutcome>;

export function done(output: string): CommandOutcome {
  return { ok: true, output };
}

export function refused(code: SlashOutcomeCode, output: string, error?: unknown): CommandOutcome {
  return error === undefined ? { ok: false, code, output } : { ok: false, code, output, error };
}

export function usage(context: SlashContext, line: ParsedSlash & { command: SlashCommandName }): CommandOutcome {
  return refused("usage", context.messages.usage(line.command, line.name, context.messages.argumentHint(line.command)));
}

/** A failed session, thread or agent call as an outcome: unsupported features and missing threads by name. */
export function failure(context: SlashContext, command: SlashCommandName, error: unknown): CommandOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (AdaptorError.is(error) && error.code === "feature_unsupported") return refused("unsupported", context.messages.unsupported(command, message), error);
  if (AdaptorError.is(error) && error.code === "session_busy") return refused("busy", context.messages.busy(command), error);
  const code = AdaptorError.is(error) ? error.code : undefined;
  return refused("failed", context.messages.failed(command, message, code), error);
}
