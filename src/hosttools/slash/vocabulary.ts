/** The slash tool's leaf vocabulary: command names, outcome codes and collisions (no imports). */

/** The portable commands, in the order `/help` presents them. */
export type SlashCommandName = "new" | "resume" | "fork" | "model" | "effort" | "status" | "help" | "clear" | "compact" | "goal";

/** Why a failed or refused command did not do what was asked. */
export type SlashOutcomeCode =
  | "unknown_command"
  | "usage"
  | "collision"
  | "unsupported"
  | "busy"
  | "not_found"
  | "failed";

/** A portable command name (or alias) that is also a native command of the provider. */
export interface SlashCollision {
  /** The colliding word, without the slash. */
  name: string;
  /** The portable command the word reaches. */
  command: SlashCommandName;
  /** What the policy does with it: `native` (sent to the provider), `portable` (ours runs) or `refused`. */
  resolution: "native" | "portable" | "refused";
}
