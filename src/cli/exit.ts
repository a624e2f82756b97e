/**
 * Exit codes and how failures are printed. stderr carries `error <code>: <message>`; stdout
 * carries only results, so a script can parse it.
 */
import { AdaptorError } from "../errors/index.js";

/** Exit codes: 0 completed, 1 the run (or the server's answer) failed, 2 bad usage or configuration, 130 cancelled. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The code printed for what commander rejects: unknown command or option, missing or bad value. */
export const USAGE_INVALID = "usage_invalid";

/** Codes that mean the command line or this machine's setup is wrong rather than the run: exit 2. */
const USAGE_CODES: ReadonlySet<string> = new Set(["config_invalid", "option_scope", "executable_not_found", USAGE_INVALID]);

/**
 * A failure the command itself decides (a server's error answer, no server at the URL): its own
 * code and exit code. Not an `AdaptorError`, whose codes are the library's closed table.
 */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  constructor(code: string, message: string, exitCode: ExitCode) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.exitCode = exitCode;
  }
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (!AdaptorError.is(error)) return EXIT.failed;
  if (error.code === "run_cancelled") return EXIT.cancelled;
  return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
}

export function printError(error: unknown): void {
  if (AdaptorError.is(error) || error instanceof CliError) process.stderr.write(`error ${error.code}: ${error.message}\n`);
  else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** The exit codes as `--help` and docs/cli.md list them. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    done
  1    the run failed, or the server refused the request (unknown session or thread, conflict)
  2    bad usage or configuration: unknown option or driver, missing file or executable,
       no server at the URL, missing or wrong token
  130  cancelled (Ctrl-C)`;
