#!/usr/bin/env node
/**
 * The `agent-adaptor` command: inspect a provider, run a prompt, serve the attach server and
 * drive its sessions and threads, serve the scripted model endpoint for tests. Errors print their
 * code and message; stacks only with `--debug`. Exit codes: see `EXIT_CODES_HELP`.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { createAgent } from "../agent/agent.js";
import type { Inspection } from "../inspect/types.js";
import { EXIT, EXIT_CODES_HELP, USAGE_INVALID, exitCodeFor, printError } from "./exit.js";
import { formatInspection } from "./format.js";
import { cliDriverDescription, cliDriverNames, driverFor, settingsFrom } from "./registry.js";
import * as remote from "./remote.js";
import { runCommand, type RunFlags } from "./run.js";
import { interruptSignal } from "./signals.js";
import { renderTable } from "./table.js";
import { colorsFor } from "./terminal.js";

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

async function inspectCommand(flags: { driver?: string; json?: boolean; model?: string; executable?: string }): Promise<number> {
  const interrupt = interruptSignal();
  const agent = createAgent(driverFor(flags.driver, settingsFrom(flags)));
  try {
    const inspection = await agent.inspect({ signal: interrupt.signal });
    process.stdout.write(flags.json ? `${JSON.stringify(inspection, null, 2)}\n` : `${formatInspection(inspection, colorsFor(process.stdout))}\n`);
    return missingExecutable(inspection);
  } finally {
    interrupt.dispose();
    await agent.close();
  }
}

/** An inspection whose provider could not even be started reports that as a usage error. */
function missingExecutable(inspection: Inspection): number {
  const reason = inspection.environment.reason;
  if (inspection.environment.status === "observed" || reason?.code !== "executable_not_found") return EXIT.ok;
  process.stderr.write(`error ${reason.code}: ${reason.message}\n`);
  return EXIT.usage;
}

function reportError(error: unknown, debug: boolean): number {
  // Commander has already printed its message (through `outputError` below).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  printError(error);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return exitCodeFor(error);
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("a port is an integer from 0 to 65535");
  return n;
}

/** A list's `--limit`: what the server accepts (1 to 1000). */
function listLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > remote.MAX_LIST_LIMIT) throw new InvalidArgumentError(`a limit is an integer from 1 to ${remote.MAX_LIST_LIMIT}`);
  return n;
}

function positiveUsd(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("an amount of USD above 0");
  return n;
}

function positiveCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("an integer above 0");
  return n;
}

/** `--answer ID=VALUE`, repeatable. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("a count is a non-negative integer");
  return n;
}

/** Wraps a command's action so its exit code reaches `main`. */
type Runner = (action: () => Promise<number>) => () => Promise<void>;

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("agent-adaptor")
    .description("Drive coding agents through one provider-neutral API.")
    .version(packageVersion(), "-V, --version", "print the version")
    .option("--debug", "print stack traces of errors")
    .exitOverride()
    .configureOutput({ outputError: (message, write) => write(message.replace(/^error: /, `error ${USAGE_INVALID}: `)) })
    .showHelpAfterError()
    .addHelpText("after", `${EXIT_CODES_HELP}\n\nDocumentation: docs/cli.md`);
  const run: Runner = (action) => async () => setExit(await action());
  // A subcommand's help also lists --debug and --version.
  program.configureHelp({ showGlobalOptions: true });

  addLocalCommands(program, run);
  addServeCommand(program, run);
  addRemoteCommands(program, run);
  addToolCommands(program, run);
  return program;
}

/** `drivers`, `inspect` and `run`: commands that need no server. */
function addLocalCommands(program: Command, run: Runner): void {
  program
    .command("drivers")
    .description("list the drivers this command can use")
    .option("--json", "print the list as JSON")
    .action((flags: { json?: boolean }) =>
      run(async () => {
        const names = cliDriverNames();
        if (flags.json) process.stdout.write(`${JSON.stringify(names.map((name) => ({ name, description: cliDriverDescription(name) })), null, 2)}\n`);
        else process.stdout.write(`${renderTable(["driver", "description"], names.map((name) => [name, cliDriverDescription(name) ?? ""]), colorsFor(process.stdout))}\n`);
        return EXIT.ok;
      })(),
    );

  program
    .command("inspect")
    .description("show what the provider offers: every panel with its status, reason and evidence")
    .option("--driver <name>", "driver to inspect (see `agent-adaptor drivers`)")
    .option("--executable <path>", "provider executable, when the driver runs one")
    .option("--json", "print the inspection as JSON")
    .action((flags: { driver?: string; json?: boolean; executable?: string }) => run(() => inspectCommand(flags))());

  program
    .command("run")
    .description("run one prompt and stream its canonical events; approvals are asked on a terminal, denied without one")
    .argument("<prompt>", "the prompt")
    .option("--driver <name>", "driver to run (see `agent-adaptor drivers`)")
    .option("--model <id>", "model id, passed through unchanged")
    .option("--effort <level>", "reasoning effort")
    .option("--workspace <dir>", "absolute workspace directory (default: the current directory)")
    .option("--executable <path>", "provider executable, when the driver runs one")
    .addOption(new Option("--approve", "allow every approval request without asking (for scripts)").conflicts("deny"))
    .addOption(new Option("--deny", "deny every approval request without asking (for scripts)").conflicts("approve"))
    .option("--json", "print events as JSON lines")
    .action((prompt: string, flags: RunFlags) => run(() => runCommand(prompt, flags))());

}

/** `serve`: the attach server until Ctrl-C. */
function addServeCommand(program: Command, run: Runner): void {
  program
    .command("serve")
    .description("serve the attach server: HTTP API, web console and live event streams, until Ctrl-C")
    .option("--config <file>", "agents, store and server settings (JSON or TOML); default: the offline demo agent")
    .option("--host <host>", "address to bind (default 127.0.0.1; another needs a given token)")
    .option("--port <n>", "port (default 7878; 0: any free port)", port)
    .option("--state-dir <dir>", "token file and SQLite store (default: ~/.agent-adaptor)")
    .option("--token-env <name>", "environment variable holding the token to use (default: AGENT_ADAPTOR_TOKEN, else generated and kept in the state directory)")
    .option("--print-token", "print the console URL with the token even when stdout is not a terminal, and in --json")
    .option("--json", "print {url, consoleUrl, tokenFile | tokenEnv} as one JSON line (consoleUrl without the token unless --print-token)")
    .action((flags: import("./serve.js").ServeFlags) =>
      run(async () => {
        const interrupt = interruptSignal();
        try {
          const { serveCommand } = await import("./serve.js");
          return await serveCommand(flags, interrupt);
        } finally {
          interrupt.dispose();
        }
      })(),
    );

}

/** `sessions`, `attach` and `threads`: clients of a running server. */
function addRemoteCommands(program: Command, run: Runner): void {
  const attachAction = (id: string, flags: import("./attach.js").AttachFlags) =>
    run(async () => {
      const interrupt = interruptSignal();
      try {
        const { attachSession } = await import("./attach.js");
        const detach = new AbortController();
        interrupt.signal.addEventListener("abort", () => detach.abort(), { once: true });
        return await attachSession(id, flags, detach);
      } finally {
        interrupt.dispose();
      }
    })();
  // `attach` is both `sessions attach` and a top-level command; made with .command() so both inherit the program's error handling.
  const attachCommand = (command: Command) =>
    remote
      .remoteOptions(command.description("render a session live (replay, then follow); answer its approvals; Ctrl-C detaches").argument("<id>", "session id"))
      .option("--after <seq>", "start after this event (default: replay the whole log)", count)
      .action(attachAction);

  const sessions = program.command("sessions").description("the sessions of a running server (see `serve`)");
  remote.remoteOptions(sessions.command("list").description("list sessions, newest first"))
    .option("--state <state>", "only sessions in this state (created, running, idle, sleeping, archived)")
    .option("--limit <n>", `at most this many (default ${remote.DEFAULT_LIST_LIMIT}, at most ${remote.MAX_LIST_LIMIT}); stderr says when there may be more`, listLimit)
    .action((flags: Parameters<typeof remote.listSessions>[0]) => run(() => remote.listSessions(flags))());
  remote.remoteOptions(sessions.command("show").description("a session's state, gate, queue and cost").argument("<id>", "session id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(() => remote.showSession(id, flags))());
  remote.remoteOptions(sessions.command("create").description("create a session of a configured agent; prints its id").argument("<agent>", "agent name from the server's config"))
    .option("--id <id>", "the session id (default: generated)")
    .option("--model <id>", "model of its runs")
    .option("--effort <level>", "reasoning effort of its runs")
    .action((agent: string, flags: Parameters<typeof remote.createSession>[1]) => run(() => remote.createSession(agent, flags))());
  remote.remoteOptions(sessions.command("submit").description("queue a message; prints its prompt id").argument("<id>", "session id").argument("<text>", "the message"))
    .action((id: string, text: string, flags: remote.RemoteCommandFlags) => run(() => remote.submitToSession(id, text, flags))());
  remote.remoteOptions(sessions.command("interrupt").description("cancel the running turn (the session stays)").argument("<id>", "session id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(() => remote.interruptSession(id, flags))());
  remote.remoteOptions(sessions.command("archive").description("archive a session (it takes no more messages)").argument("<id>", "session id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(() => remote.archiveSession(id, flags))());
  addSessionRequestCommands(sessions, run);
  attachCommand(sessions.command("attach"));
  attachCommand(program.command("attach"));

  const threads = program.command("threads").description("the stored threads of a running server");
  remote.remoteOptions(threads.command("list").description("list threads, newest first"))
    .option("--agent <name>", "only this agent's threads")
    .option("--limit <n>", `at most this many (default ${remote.DEFAULT_LIST_LIMIT}, at most ${remote.MAX_LIST_LIMIT}); stderr says when there may be more`, listLimit)
    .action((flags: Parameters<typeof remote.listThreads>[0]) => run(() => remote.listThreads(flags))());
  remote.remoteOptions(threads.command("show").description("a thread's record").argument("<id>", "thread id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(() => remote.showThread(id, flags))());
  remote.remoteOptions(threads.command("history").description("a thread's ended turns, newest first").argument("<id>", "thread id"))
    .option("--limit <n>", "at most this many turns", count)
    .option("--before <turn>", "only turns numbered below this (the previous page's hint)", count)
    .action((id: string, flags: Parameters<typeof remote.threadHistory>[1]) => run(() => remote.threadHistory(id, flags))());
  remote.remoteOptions(threads.command("delete").description("delete a thread that no live session holds").argument("<id>", "thread id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(() => remote.deleteThread(id, flags))());

}

/** `sessions pending`, `answer`, `budget` and `reset-run-ceiling`: what an operator lifts for a waiting session. */
function addSessionRequestCommands(sessions: Command, run: Runner): void {
  remote.remoteOptions(sessions.command("pending").description("the approvals and questions the session's run waits for").argument("<id>", "session id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(async () => (await import("./requests.js")).listPending(id, flags))());
  remote.remoteOptions(
    sessions
      .command("answer")
      .description("answer a question the session's run asked (on a terminal without --answer: a prompt per question)")
      .argument("<id>", "session id")
      .argument("[requestId]", "the question request (default: the only one waiting)"),
  )
    .option("--answer <ID=VALUE>", "the answer to question ID (repeat for each question; again for another value of a multi-select one)", collect)
    .option("--decline", "decline to answer")
    .action((id: string, requestId: string | undefined, flags: import("./requests.js").AnswerFlags) =>
      run(async () => {
        const interrupt = interruptSignal();
        try {
          return await (await import("./requests.js")).answerQuestion(id, requestId, flags, interrupt.signal);
        } finally {
          interrupt.dispose();
        }
      })(),
    );
  remote.remoteOptions(sessions.command("budget").description("raise the session's cost and/or token ceiling; prints spend and ceilings").argument("<id>", "session id"))
    .option("--usd <n>", "raise the session cost ceiling by this many USD", positiveUsd)
    .option("--tokens <n>", "raise the session token ceiling by this many tokens", positiveCount)
    .action((id: string, flags: Parameters<typeof remote.raiseBudget>[1]) => run(() => remote.raiseBudget(id, flags))());
  remote.remoteOptions(sessions.command("reset-run-ceiling").description("clear a tripped run ceiling so the next run may start").argument("<id>", "session id"))
    .action((id: string, flags: remote.RemoteCommandFlags) => run(() => remote.resetRunCeiling(id, flags))());
}

/** `demo` and `testing`. */
function addToolCommands(program: Command, run: Runner): void {
  program
    .command("demo")
    .description("one real agent turn, offline: the Codex CLI against the scripted model server")
    .option("--json", "print the events, then the outcome, as JSON lines")
    .action((flags: { json?: boolean }) =>
      run(async () => {
        const interrupt = interruptSignal();
        try {
          const { demoCommand } = await import("./demo.js");
          return await demoCommand((line) => process.stdout.write(`${line}\n`), interrupt.signal, { json: flags.json === true });
        } finally {
          interrupt.dispose();
        }
      })(),
    );

  const testing = program.command("testing").description("tools for testing integrations without paid calls");
  testing
    .command("model-server")
    .description("serve a scripted model endpoint on 127.0.0.1 (OpenAI, Anthropic, Gemini dialects)")
    .requiredOption("--script <file>", "scenario JSON file")
    .option("--port <n>", "port (default: any free port)", port)
    .option("--json", 'print {"url"} as one JSON line instead of the bare URL')
    .action(async (flags: { script: string; port?: number; json?: boolean }) => {
      const { runModelServerCommand } = await import("../testing/model-server/index.js");
      const io = flags.json ? { stdout: { write: (url: string) => process.stdout.write(`${JSON.stringify({ url: url.trim() })}\n`) } } : {};
      await runModelServerCommand(flags.port === undefined ? { script: flags.script } : { script: flags.script, port: flags.port }, io);
    });

}

async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram((code) => (exitCode = code));
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    return reportError(error, argv.includes("--debug"));
  }
}

process.exitCode = await main(process.argv);
