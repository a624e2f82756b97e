#!/usr/bin/env node
/**
 * The `agent-adaptor` command: inspect a provider, run a prompt, serve the scripted model
 * endpoint for tests. Errors print their code and message; stacks only with `--debug`.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { createAgent } from "../agent/agent.js";
import type { CallOptions } from "../agent/options.js";
import type { Inspection } from "../inspect/types.js";
import { AdaptorError, ConfigError } from "../errors/index.js";
import { describeEvent, formatInspection } from "./format.js";
import { cliDriverDescription, cliDriverNames, createCliDriver, type CliDriverSettings } from "./registry.js";

/** Exit codes: 0 completed, 1 the run failed, 2 bad usage or configuration, 130 cancelled. */
const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** The code printed for what commander rejects: unknown command or option, missing or bad value. */
const USAGE_INVALID = "usage_invalid";

/** Codes that mean the command line or this machine's setup is wrong rather than the run: exit 2. */
const USAGE_CODES: ReadonlySet<string> = new Set(["config_invalid", "option_scope", "executable_not_found", USAGE_INVALID]);

function exitCodeFor(error: unknown): number {
  if (!AdaptorError.is(error)) return EXIT.failed;
  if (error.code === "run_cancelled") return EXIT.cancelled;
  return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
}

/** Failures go to stderr as `error <code>: <message>`; stdout carries only results. */
function printError(error: unknown): void {
  if (AdaptorError.is(error)) process.stderr.write(`error ${error.code}: ${error.message}\n`);
  else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

interface GlobalFlags {
  debug?: boolean;
}

function driverFor(name: string | undefined, settings: CliDriverSettings) {
  const names = cliDriverNames();
  const chosen = name ?? process.env.AGENT_ADAPTOR_DRIVER ?? (names.includes("codex") ? "codex" : undefined);
  if (!chosen) throw new ConfigError(`choose a driver with --driver (available: ${names.join(", ")})`);
  const driver = createCliDriver(chosen, settings);
  if (!driver) throw new ConfigError(`unknown driver "${chosen}" (available: ${names.join(", ")})`);
  return driver;
}

function settingsFrom(flags: { model?: string; executable?: string }): CliDriverSettings {
  const settings: CliDriverSettings = {};
  if (flags.model) settings.model = flags.model;
  if (flags.executable) settings.executable = flags.executable;
  return settings;
}

/** Cancels on the first Ctrl-C; the second one exits at once. */
function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.cancelled);
    controller.abort(new Error("interrupted"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

async function inspectCommand(flags: { driver?: string; json?: boolean; model?: string; executable?: string }): Promise<number> {
  const interrupt = interruptSignal();
  const agent = createAgent(driverFor(flags.driver, settingsFrom(flags)));
  try {
    const inspection = await agent.inspect({ signal: interrupt.signal });
    process.stdout.write(flags.json ? `${JSON.stringify(inspection, null, 2)}\n` : `${formatInspection(inspection)}\n`);
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

async function runCommand(
  prompt: string,
  flags: { driver?: string; model?: string; effort?: string; json?: boolean; executable?: string; workspace?: string },
): Promise<number> {
  const interrupt = interruptSignal();
  const agent = createAgent(driverFor(flags.driver, settingsFrom(flags)), flags.workspace ? { workspace: flags.workspace } : {});
  try {
    const options: CallOptions = { signal: interrupt.signal };
    if (flags.model) options.model = flags.model;
    if (flags.effort) options.effort = flags.effort;
    const stream = agent.stream(prompt, options);
    let streamingItem: string | undefined;
    for await (const event of stream) {
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(event)}\n`);
        continue;
      }
      // Message text is printed once: streamed inline as deltas, or whole when it arrives unstreamed.
      if (event.type === "message.delta") {
        if (streamingItem !== event.itemId) process.stdout.write(streamingItem ? "\n" : "");
        streamingItem = event.itemId;
        process.stdout.write(event.text);
        continue;
      }
      if (event.type === "reasoning.delta") continue;
      if (streamingItem) {
        process.stdout.write("\n");
        const finished = event.type === "message.completed" && event.itemId === streamingItem;
        streamingItem = undefined;
        if (finished) continue;
      }
      if (event.type === "message.completed") {
        process.stdout.write(`${event.text}\n`);
        continue;
      }
      // The failure itself is printed to stderr once the result settles.
      if (event.type === "run.failed" || event.type === "run.cancelled") continue;
      process.stdout.write(`${describeEvent(event)}\n`);
    }
    return await stream.result.then(
      () => EXIT.ok,
      (error: unknown) => {
        printError(error);
        return exitCodeFor(error);
      },
    );
  } finally {
    interrupt.dispose();
    await agent.close();
  }
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

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("agent-adaptor")
    .description("Drive coding agents through one provider-neutral API.")
    .version(packageVersion(), "-V, --version", "print the version")
    .option("--debug", "print stack traces of errors")
    .exitOverride()
    .configureOutput({ outputError: (message, write) => write(message.replace(/^error: /, `error ${USAGE_INVALID}: `)) })
    .showHelpAfterError();
  const run = (action: () => Promise<number>) => async () => setExit(await action());

  program
    .command("drivers")
    .description("list the drivers this command can use")
    .action(run(async () => {
      for (const name of cliDriverNames()) process.stdout.write(`${name.padEnd(12)} ${cliDriverDescription(name)}\n`);
      return EXIT.ok;
    }));

  program
    .command("inspect")
    .description("show what the provider offers: every panel with its status, reason and evidence")
    .option("--driver <name>", "driver to inspect (see `agent-adaptor drivers`)")
    .option("--executable <path>", "provider executable, when the driver runs one")
    .option("--json", "print the inspection as JSON")
    .action((flags: { driver?: string; json?: boolean; executable?: string }) => run(() => inspectCommand(flags))());

  program
    .command("run")
    .description("run one prompt and stream its canonical events")
    .argument("<prompt>", "the prompt")
    .option("--driver <name>", "driver to run (see `agent-adaptor drivers`)")
    .option("--model <id>", "model id, passed through unchanged")
    .option("--effort <level>", "reasoning effort")
    .option("--workspace <dir>", "absolute workspace directory (default: the current directory)")
    .option("--executable <path>", "provider executable, when the driver runs one")
    .option("--json", "print events as JSON lines")
    .action((prompt: string, flags: { driver?: string; model?: string; effort?: string; json?: boolean; workspace?: string }) =>
      run(() => runCommand(prompt, flags))(),
    );

  program
    .command("demo")
    .description("one real agent turn, offline: the Codex CLI against the scripted model server")
    .action(run(async () => {
      const interrupt = interruptSignal();
      try {
        const { demoCommand } = await import("./demo.js");
        return await demoCommand((line) => process.stdout.write(`${line}\n`), interrupt.signal);
      } finally {
        interrupt.dispose();
      }
    }));

  const testing = program.command("testing").description("tools for testing integrations without paid calls");
  testing
    .command("model-server")
    .description("serve a scripted model endpoint on 127.0.0.1 (OpenAI, Anthropic, Gemini dialects)")
    .requiredOption("--script <file>", "scenario JSON file")
    .option("--port <n>", "port (default: any free port)", port)
    .action(async (flags: { script: string; port?: number }) => {
      const { runModelServerCommand } = await import("../testing/model-server/index.js");
      await runModelServerCommand(flags.port === undefined ? { script: flags.script } : { script: flags.script, port: flags.port });
    });

  return program;
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
