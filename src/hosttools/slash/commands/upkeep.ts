/** `/clear` and `/compact`: the session's own operations (a fresh provider conversation; native compaction). */
import { done, failure, refused, usage, type CommandHandler } from "./context.js";

export const clear: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  const session = context.current();
  // The session's clear() cancels a run in flight; an operator's /clear waits for an explicit interrupt instead.
  if (session.status().inFlight !== undefined) return refused("busy", context.messages.busy("clear"));
  try {
    await session.clear();
  } catch (error) {
    return failure(context, "clear", error);
  }
  return done(context.messages.cleared(session.status().threadId));
};

export const compact: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  try {
    // The provider's own compaction as an ordinary turn of the session; unsupported is a typed refusal.
    await context.current().compact();
  } catch (error) {
    return failure(context, "compact", error);
  }
  return done(context.messages.compacted());
};
