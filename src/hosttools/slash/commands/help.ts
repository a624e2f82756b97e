/** `/help`: the portable commands in their fixed order, their aliases and collisions, then the provider's own. */
import type { HelpEntry } from "../messages.js";
import { nativeName } from "../native.js";
import { SLASH_COMMAND_ORDER } from "../registry.js";
import { done, usage, type CommandHandler } from "./context.js";

export const help: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  const [native, collisions] = await Promise.all([context.native(), context.collisions()]);
  const byName = new Map(collisions.map((c) => [c.name, c.resolution]));
  const entries: HelpEntry[] = SLASH_COMMAND_ORDER.map((command) => {
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
