/**
 * `createSlashCommands`: parses a line an operator typed and either runs a portable command over the
 * public Session / Thread / Agent / Inspection API or says the line goes to the session as a prompt.
 * It never starts a run itself: prompts, native commands included, reach the provider only through
 * the session the host submits them to.
 */
import { ConfigError } from "../../errors/index.js";
import type { Session } from "../../session/types.js";
import { usage, type CommandHandler, type CommandOutcome, type SlashContext } from "./commands/context.js";
import { help } from "./commands/help.js";
import { goal } from "./commands/goal.js";
import { effort, model } from "./commands/settings.js";
import { status } from "./commands/status.js";
import { forkThread, newSession, resumeThread } from "./commands/switch.js";
import { clear, compact } from "./commands/upkeep.js";
import { formatters } from "./format.js";
import { resolveMessages } from "./messages.js";
import { collisionsOf, InspectionCache, nativeName, readNativeCommands } from "./native.js";
import { hasUnclosedQuote, parseCommandLine } from "./parse.js";
import { commandNames, type CommandNames } from "./registry.js";
import { defaultOpenSession } from "./open-session.js";
import type { CollisionPolicy, ParsedSlash, SlashCommandName, SlashCommands, SlashCommandsOptions, SlashDispatch, SlashHandled } from "./types.js";

const HANDLERS: Record<SlashCommandName, CommandHandler> = {
  new: newSession,
  resume: resumeThread,
  fork: forkThread,
  model,
  effort,
  status,
  help,
  clear,
  compact,
  goal,
};

const POLICIES: readonly CollisionPolicy[] = ["native-first", "portable-first", "reject"];

/**
 * The slash tool over `options.session`: `dispatch(line)` runs a portable command or says the line
 * is a prompt for the session. Throws `ConfigError` for invalid options, conflicting aliases or an
 * unknown message key.
 *
 * @example
 * ```ts
 * const slash = createSlashCommands({ session, agent, collisions: "portable-first", aliases: { clear: ["reset"] } });
 * const outcome = await slash.dispatch(line);
 * if (outcome.handled) print(outcome.output);
 * else await slash.session.submit(line);
 * ```
 */
export function createSlashCommands(options: SlashCommandsOptions): SlashCommands {
  checkOptions(options);
  const names = commandNames(options.aliases);
  const messages = resolveMessages(options.messages);
  const inspections = new InspectionCache(options.agent);
  const given = options.nativeCommands === undefined || options.nativeCommands === "inspect" ? undefined : [...options.nativeCommands];
  const open = options.openSession ?? defaultOpenSession(options.agent);
  const closePrevious = options.closePrevious !== false;
  let current = options.session;

  const native = (refresh = false) => readNativeCommands(given, current, inspections, refresh);
  const context: SlashContext = {
    agent: options.agent,
    messages,
    format: formatters(options.locale),
    names,
    current: () => current,
    async switchTo(request) {
      const previous = current;
      const session = await open({ ...request, previous });
      current = session;
      // The previous session's record stays: /resume reaches its thread again.
      if (closePrevious && session !== previous) await previous.close().catch(() => undefined);
      return { session, previous };
    },
    switchCancelsRuns: () => closePrevious,
    serial: serialized(),
    inspection: () => inspections.get(),
    native: () => native(),
    collisions: async () => collisionsOf(names, await native(), options.collisions),
  };

  const slash: SlashCommands = {
    get session() {
      return current;
    },
    parse: (text) => parsed(names, text),
    dispatch: (text) => dispatch(context, options.collisions, text),
    nativeCommands: (call = {}) => native(call.refresh === true),
    collisions: () => context.collisions(),
  };
  return slash;
}

function parsed(names: CommandNames, text: string): ParsedSlash | undefined {
  if (typeof text !== "string") return undefined;
  const line = parseCommandLine(text);
  if (line === undefined) return undefined;
  const command = names.resolve(line.name);
  return command === undefined ? line : { ...line, command };
}

/** One line: not a command, the provider's own, unknown, refused by the collision policy, or run. */
async function dispatch(context: SlashContext, policy: CollisionPolicy, text: string): Promise<SlashDispatch> {
  const line = parsed(context.names, text);
  if (line === undefined) return { handled: false, reason: "not_a_command" };
  // Portable first: a portable command runs without asking the provider what it has.
  if (line.command !== undefined && policy === "portable-first") return run(context, line.command, line);
  const native = await context.native();
  const isNative = native.known && native.commands.some((c) => nativeName(c) === line.name);
  if (line.command === undefined) {
    if (isNative) return { handled: false, reason: "native" };
    // Without the provider's list, an unknown word may be its command: let the provider answer.
    if (!native.known) return { handled: false, reason: "not_portable" };
    return handled(context, undefined, { ok: false, code: "unknown_command", output: context.messages.unknownCommand(line.name) });
  }
  const command = line.command;
  if (isNative && policy === "native-first") return { handled: false, reason: "native" };
  if (isNative && policy === "reject") {
    const aliases = context.names.aliasesOf(command).filter((alias) => !native.commands.some((c) => nativeName(c) === alias));
    return handled(context, command, { ok: false, code: "collision", output: context.messages.collisionRefused(line.name, command, aliases) });
  }
  return run(context, command, line);
}

async function run(context: SlashContext, command: SlashCommandName, line: ParsedSlash): Promise<SlashHandled> {
  // `/model "gpt 5` would otherwise act on a guess at the argument the operator meant (a goal's
  // objective is free text, where a lone `"` is the operator's: inches, a quotation).
  if (command !== "goal" && hasUnclosedQuote(line.rest)) return handled(context, command, usage(context, { ...line, command }));
  const outcome = await context.serial(command, () => HANDLERS[command](context, { ...line, command }));
  return handled(context, command, outcome);
}

function handled(context: SlashContext, command: SlashCommandName | undefined, outcome: CommandOutcome): SlashHandled {
  const result: SlashHandled = { handled: true, ok: outcome.ok, output: outcome.output, session: context.current() };
  if (command !== undefined) result.command = command;
  if (outcome.code !== undefined) result.code = outcome.code;
  if (outcome.error !== undefined) result.error = outcome.error;
  if (outcome.switchedFrom !== undefined) result.switchedFrom = outcome.switchedFrom;
  return result;
}

function checkOptions(options: SlashCommandsOptions): void {
  if (typeof options !== "object" || options === null) throw new ConfigError("createSlashCommands needs { session, agent, collisions }");
  const session = options.session as Partial<Session> | undefined;
  if (typeof session?.status !== "function" || typeof session.submit !== "function") throw new ConfigError("createSlashCommands: session must be a Session");
  if (typeof options.agent?.inspect !== "function" || typeof options.agent.resumeThread !== "function") throw new ConfigError("createSlashCommands: agent must be an Agent");
  if (!POLICIES.includes(options.collisions)) throw new ConfigError(`createSlashCommands: collisions must be one of ${POLICIES.join(", ")}`);
  if (options.openSession !== undefined && typeof options.openSession !== "function") throw new ConfigError("createSlashCommands: openSession must be a function");
  if (options.nativeCommands !== undefined && options.nativeCommands !== "inspect" && !Array.isArray(options.nativeCommands)) {
    throw new ConfigError('createSlashCommands: nativeCommands must be "inspect" or a list of commands');
  }
}

/** Commands that replace or rebind the session run one at a time; the others run at once. */
function serialized(): SlashContext["serial"] {
  let tail: Promise<unknown> = Promise.resolve();
  return (command, task) => {
    if (!SWITCHING.has(command)) return task();
    const next = tail.then(task, task);
    tail = next.catch(() => undefined);
    return next;
  };
}

const SWITCHING = new Set<SlashCommandName>(["new", "resume", "fork", "clear"]);
