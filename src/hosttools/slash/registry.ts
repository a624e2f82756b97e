/**
 * The portable commands in their fixed presentation order, and the names that reach them: each
 * command's own name plus the host's aliases, checked once at construction.
 */
import { ConfigError } from "../../errors/index.js";
import { isCommandWord } from "./parse.js";
import type { SlashCommandName } from "./types.js";

/** The order `/help` lists the commands in (the conversation first, then its settings, then upkeep). */
export const SLASH_COMMAND_ORDER: readonly SlashCommandName[] = Object.freeze([
  "new",
  "resume",
  "fork",
  "model",
  "effort",
  "status",
  "help",
  "clear",
  "compact",
  "goal",
]);

const PORTABLE = new Set<string>(SLASH_COMMAND_ORDER);

/** Every name that reaches a command, and each command's aliases in the order given. */
export interface CommandNames {
  /** The command a typed word names, if any. */
  resolve(name: string): SlashCommandName | undefined;
  aliasesOf(command: SlashCommandName): readonly string[];
  /** Every word (names and aliases) with the command it reaches. */
  entries(): [string, SlashCommandName][];
}

/** The names table, or `ConfigError` naming the first alias that cannot be one. */
export function commandNames(aliases: Partial<Record<SlashCommandName, readonly string[]>> | undefined): CommandNames {
  const byName = new Map<string, SlashCommandName>(SLASH_COMMAND_ORDER.map((c) => [c, c]));
  const aliasList = new Map<SlashCommandName, string[]>();
  if (aliases !== undefined && (typeof aliases !== "object" || aliases === null || Array.isArray(aliases))) {
    throw new ConfigError("aliases must be an object of command name to alias list");
  }
  for (const [command, list] of Object.entries(aliases ?? {})) {
    if (!PORTABLE.has(command)) throw new ConfigError(`aliases: "${command}" is not a portable command (${SLASH_COMMAND_ORDER.join(", ")})`);
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new ConfigError(`aliases.${command} must be an array of names`);
    for (const raw of list as unknown[]) {
      const alias = checkedAlias(raw, command);
      const taken = byName.get(alias);
      if (taken !== undefined) {
        throw new ConfigError(taken === alias ? `alias "/${alias}" of /${command} is the name of the portable command /${alias}` : `alias "/${alias}" is given to both /${taken} and /${command}`);
      }
      byName.set(alias, command as SlashCommandName);
      aliasList.set(command as SlashCommandName, [...(aliasList.get(command as SlashCommandName) ?? []), alias]);
    }
  }
  return {
    resolve: (name) => byName.get(name.toLowerCase()),
    aliasesOf: (command) => aliasList.get(command) ?? [],
    entries: () => [...byName.entries()],
  };
}

/** An alias as typed words are compared: without a leading slash, lowercased. */
function checkedAlias(raw: unknown, command: string): string {
  if (typeof raw !== "string") throw new ConfigError(`aliases.${command}: an alias is a string`);
  const alias = (raw.startsWith("/") ? raw.slice(1) : raw).toLowerCase();
  if (!isCommandWord(alias)) throw new ConfigError(`aliases.${command}: "${raw}" is not a command word (a letter, then letters, digits, _ - : .)`);
  return alias;
}
