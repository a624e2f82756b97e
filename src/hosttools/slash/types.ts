/**
 * The public shape of the slash-command host tool (`agent-adaptor/hosttools/slash`): portable
 * commands an operator types into a session's input line, parsed and dispatched over the public
 * Session, Thread, Agent and Inspection API only.
 */
import type { Agent } from "../../agent/agent.js";
import type { NativeCommandInfo } from "../../inspect/types.js";
import type { Session } from "../../session/types.js";
import type { SlashMessages } from "./messages.js";
import type { SlashCollision, SlashCommandName, SlashOutcomeCode } from "./vocabulary.js";

export type { SlashCollision, SlashCommandName, SlashOutcomeCode } from "./vocabulary.js";


/**
 * What happens when a typed command is also one of the provider's native commands (from the
 * Inspection's `commands` panel): `native-first` sends the text to the session as a prompt, so the
 * provider runs its own; `portable-first` runs the portable command; `reject` runs neither and
 * says why (an alias of the portable command still runs it).
 */
export type CollisionPolicy = "native-first" | "portable-first" | "reject";

/** Why a new current session is opened. */
export interface OpenSessionRequest {
  /** `/new`: a fresh conversation; `/resume`: the stored thread `threadId`; `/fork`: `threadId` is the fork just made. */
  reason: "new" | "resume" | "fork";
  /** The thread the session wraps; absent for `/new`. */
  threadId?: string;
  /** The session that is current now. */
  previous: Session;
}

/** Options of {@link createSlashCommands}. */
export interface SlashCommandsOptions {
  /** The session the commands act on first; `/new`, `/resume` and `/fork` replace it. */
  session: Session;
  /** The agent behind the session: its inspection, threads and driver info. */
  agent: Agent;
  /** What a portable name that is also a native command of the provider does (see {@link CollisionPolicy}). */
  collisions: CollisionPolicy;
  /**
   * Extra names for portable commands, e.g. `{ clear: ["reset"] }`. A name taken twice, a name of a
   * portable command, or one that is not a command word is refused at construction.
   */
  aliases?: Partial<Record<SlashCommandName, readonly string[]>>;
  /** BCP 47 locale for numbers and times in the output (default: the runtime's). */
  locale?: string;
  /** Replacements for any user-visible string (see {@link SlashMessages}). */
  messages?: Partial<SlashMessages>;
  /**
   * The provider's native commands: `"inspect"` (default) reads them once from `agent.inspect()`;
   * a list given here is used instead (no inspection).
   */
  nativeCommands?: "inspect" | readonly NativeCommandInfo[];
  /**
   * Opens the session `/new`, `/resume` and `/fork` switch to. Default: `createSession(agent, { threadId })`
   * (a new session over the thread, in memory); give one to use your store and options.
   */
  openSession?: (request: OpenSessionRequest) => Promise<Session>;
  /** Close the previous session (its record stays) after a switch. Default true. */
  closePrevious?: boolean;
}

/** One typed command line. */
export interface ParsedSlash {
  /** The command word as typed, lowercased, without the slash. */
  name: string;
  /** The portable command it names (directly or through an alias), if any. */
  command?: SlashCommandName;
  /** The arguments, split at white space; double quotes keep white space inside one. */
  args: string[];
  /** Everything after the command word, trimmed (free text such as a goal's objective). */
  rest: string;
}

/** The text is not for the slash tool: send it to the session as a prompt (`session.submit`). */
export interface SlashNotHandled {
  /** Always false: the line is the session's. */
  handled: false;
  /** `not_a_command`: plain text; `native`: the provider's own command; `not_portable`: unknown here, and the provider's list is not known. */
  reason: "not_a_command" | "native" | "not_portable";
}

/** The slash tool handled the text; show `output` to the operator. */
export interface SlashHandled {
  /** Always true: the slash tool answered the line. */
  handled: true;
  /** The portable command that ran (absent for an unknown command). */
  command?: SlashCommandName;
  /** Whether the command did what was asked. */
  ok: boolean;
  /** The answer to show the operator (from the messages table). */
  output: string;
  /** Present when `ok` is false. */
  code?: SlashOutcomeCode;
  /** The current session after the command (a new one after `/new`, `/resume` or `/fork`). */
  session: Session;
  /** The session that was current before, when the command switched. */
  switchedFrom?: Session;
  /** The error a failed session or agent call raised. */
  error?: unknown;
}

/** What `dispatch` made of a line: handled (show `output`) or not (submit the line to the session). */
export type SlashDispatch = SlashNotHandled | SlashHandled;

/** The provider's native commands as the slash tool knows them. */
export type NativeCommandsView =
  /**
   * `source`: the host's `nativeCommands` list, the list the provider advertised in the session's
   * conversation (`SessionStatus.nativeCommands`), or the inspection's `commands` panel.
   */
  | { known: true; source: "host" | "session" | "inspection"; commands: NativeCommandInfo[] }
  | { known: false; reason: string };

/** The slash tool over one current session (see {@link createSlashCommands}). */
export interface SlashCommands {
  /** The session the commands act on now. */
  readonly session: Session;
  /** The command line in `text`, or undefined when `text` is no command (plain text, a path such as `/usr/bin`, `//…`). */
  parse(text: string): ParsedSlash | undefined;
  /** Run the command in `text`, or say the text goes to the session as a prompt. Never throws for a command's failure. */
  dispatch(text: string): Promise<SlashDispatch>;
  /** The provider's native commands (read once; `refresh` reads them again). */
  nativeCommands(options?: { refresh?: boolean }): Promise<NativeCommandsView>;
  /** Every portable name or alias that is also a native command, with what the policy does with it. */
  collisions(): Promise<SlashCollision[]>;
}
