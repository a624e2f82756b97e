/** `/new`, `/resume <thread>`, `/fork`: a new current session over a fresh, stored or forked thread. */
import { AdaptorError } from "../../../errors/index.js";
import { done, failure, refused, usage, type CommandHandler, type CommandOutcome, type SlashContext } from "./context.js";

/** Refused while a run is in flight when the switch would close (and so cancel) it. */
function busy(context: SlashContext, command: "new" | "resume" | "fork"): CommandOutcome | undefined {
  if (context.switchCancelsRuns() && context.current().status().inFlight !== undefined) return refused("busy", context.messages.busy(command));
  return undefined;
}

export const newSession: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  const blocked = busy(context, "new");
  if (blocked) return blocked;
  try {
    const { session, previous } = await context.switchTo({ reason: "new" });
    return { ...done(context.messages.switched("new", session.id, session.status().threadId)), switchedFrom: previous };
  } catch (error) {
    return failure(context, "new", error);
  }
};

export const resumeThread: CommandHandler = async (context, line) => {
  if (line.args.length !== 1) return usage(context, line);
  const threadId = line.args[0]!;
  if (threadId === context.current().status().threadId) {
    return done(context.messages.switched("resume", context.current().id, threadId));
  }
  const blocked = busy(context, "resume");
  if (blocked) return blocked;
  try {
    // Checked before any session exists: a missing or incompatible thread starts nothing.
    await context.agent.resumeThread(threadId);
  } catch (error) {
    if (AdaptorError.is(error) && error.code === "thread_not_found") return refused("not_found", context.messages.threadNotFound(threadId), error);
    return failure(context, "resume", error);
  }
  try {
    const { session, previous } = await context.switchTo({ reason: "resume", threadId });
    return { ...done(context.messages.switched("resume", session.id, session.status().threadId)), switchedFrom: previous };
  } catch (error) {
    return failure(context, "resume", error);
  }
};

export const forkThread: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  const blocked = busy(context, "fork");
  if (blocked) return blocked;
  const fromThreadId = context.current().status().threadId;
  try {
    // The fork continues from the thread's last saved turn, through the provider's native fork.
    const fork = await (await context.agent.resumeThread(fromThreadId)).fork();
    const { session, previous } = await context.switchTo({ reason: "fork", threadId: fork.id });
    return { ...done(context.messages.switched("fork", session.id, session.status().threadId, fromThreadId)), switchedFrom: previous };
  } catch (error) {
    return failure(context, "fork", error);
  }
};
