/**
 * `/help`: the portable commands in their fixed order (`/goal` only where the provider keeps goals),
 * their aliases and collisions, then the provider's own.
 */
import type { HelpEntry } from "../messages.js";
import { nativeName } from "../native.js";
import { SLASH_COMMAND_ORDER } from "../registry.js";
import { goalsSupported } from "./goal.js";
import { done, usage, type CommandHandler } from "./context.js";

export const help: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  const [native, collisions, goals] = await Promise.all([context.native(), context.collisions(), goalsSupported(context)]);
  const byName = new Map(collisions.map((c) => [c.name, c.resolution]));
  // /goal is listed only where the provider keeps goals (and when the probe could not tell).
  const listed = SLASH_COMMAND_ORDER.filter((command) => command !== "goal" || goals !== false);
  const entries: HelpEntry[] = listed.map((command) => {
    const resolution = byName.get(command);
    return {
      name: command,
      argumentHint: context.messages.argumentHint(command),
      summary: context.messages.summary(command),
      aliases: context.names.aliasesOf(command),
      ...(resolution !== undefined ? { collision: resolution } : {}),
    };
  });
  // Native commands a portable name shadows are listed only when the policy lets them through.
  const shadowed = new Set(collisions.filter((c) => c.resolution !== "native").map((c) => c.name));
  const nativeView = native.known
    ? { known: true as const, names: native.commands.map(nativeName).filter((name) => !shadowed.has(name)) }
    : { known: false as const, reason: native.reason };
  return done(context.messages.help(entries, nativeView));
};
