/**
 * `/goal …`: the conversation's native goal (Codex), read and changed through the thread's
 * `GoalControl`; where the provider has none, a typed refusal.
 */
import type { GoalControl } from "../../../agent/thread-goals.js";
import type { Goal } from "../../../driver/goals.js";
import type { GoalView } from "../messages.js";
import { unquotedText } from "../parse.js";
import { done, failure, refused, usage, type CommandHandler, type CommandOutcome, type SlashContext } from "./context.js";

const NO_BUDGET = "--none";

/** The goal control of the current session's conversation, undefined when the provider has no goals. */
async function goalControl(context: SlashContext): Promise<GoalControl | undefined> {
  const session = context.current();
  const own = (session as { goal?: unknown }).goal;
  // A session that keeps its own goal control (and logs its observations) is asked first.
  if (typeof own === "function") return (await (own as () => Promise<GoalControl | undefined>).call(session)) ?? undefined;
  const thread = await context.agent.resumeThread(session.status().threadId);
  return thread.goal();
}

/** Whether the current conversation's provider keeps goals; undefined when the probe failed. */
export async function goalsSupported(context: SlashContext): Promise<boolean | undefined> {
  try {
    return (await goalControl(context)) !== undefined;
  } catch {
    return undefined;
  }
}

function goalView(context: SlashContext, goal: Goal | undefined): GoalView | undefined {
  if (goal === undefined) return undefined;
  const { format } = context;
  return {
    objective: goal.objective,
    status: goal.status,
    tokensUsed: format.integer(goal.tokensUsed),
    ...(goal.tokenBudget !== undefined ? { tokenBudget: format.integer(goal.tokenBudget) } : {}),
    timeUsed: format.seconds(goal.timeUsedSeconds),
  };
}

export const goal: CommandHandler = async (context, line) => {
  let control: GoalControl | undefined;
  try {
    control = await goalControl(context);
  } catch (error) {
    return failure(context, "goal", error);
  }
  if (control === undefined) return refused("unsupported", context.messages.unsupported("goal", "the provider keeps no native goals"));
  try {
    return await goalAction(context, control, line.args, line.rest) ?? usage(context, line);
  } catch (error) {
    return failure(context, "goal", error);
  }
};

/** The sub-command in `args`, or undefined when its arguments do not fit. */
async function goalAction(context: SlashContext, control: GoalControl, args: string[], rest: string): Promise<CommandOutcome | undefined> {
  const [first, ...more] = args;
  const { messages } = context;
  if (first === undefined) return done(messages.goalShown(goalView(context, await control.get())));
  switch (first.toLowerCase()) {
    case "pause":
    case "resume":
      if (more.length > 0) return undefined;
      return done(messages.goalChanged(first.toLowerCase() as "pause" | "resume", goalView(context, await (first.toLowerCase() === "pause" ? control.pause() : control.resume())), true));
    case "clear": {
      if (more.length > 0) return undefined;
      const existed = await control.clear();
      return done(messages.goalChanged("clear", undefined, existed));
    }
    case "budget": {
      const tokens = budgetArgument(more);
      if (tokens === undefined) return undefined;
      return done(messages.goalChanged("budget", goalView(context, await control.budget(tokens)), true));
    }
    case "set": {
      const objective = unquotedText(rest.slice(first.length));
      if (objective === "") return undefined;
      return done(messages.goalChanged("set", goalView(context, await control.set(objective)), true));
    }
    default:
      return done(messages.goalChanged("set", goalView(context, await control.set(unquotedText(rest))), true));
  }
}

/** `budget <tokens>` (a positive integer) or `budget --none`; undefined when neither. */
function budgetArgument(args: string[]): number | null | undefined {
  if (args.length !== 1) return undefined;
  if (args[0] === NO_BUDGET) return null;
  return /^[1-9][0-9]*$/.test(args[0]!) ? Number(args[0]) : undefined;
}
