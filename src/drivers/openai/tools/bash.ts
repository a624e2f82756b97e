/** `bash`: a shell command in the workspace, in its own process group, with a timeout and an output cap. */
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";

import { ExecutableNotFoundError } from "../../../errors/index.js";
import { field, failure, oneLine, parseArgs } from "./args.js";
import { runCommand, type CommandEnd } from "./command.js";
import { workspaceRoot } from "./confine.js";
import { CappedOutput } from "./output-cap.js";
import type { BuiltinTool, BuiltinToolsOptions, ToolOutcome, ToolRunContext } from "./types.js";

/** Default time a command may run. */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Longest time a call may ask for. */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Default output kept for the model, in bytes. */
export const DEFAULT_BASH_OUTPUT_CAP_BYTES = 30 * 1024;
/** Output streamed through `onOutput` per call at most; the model still gets the capped whole. */
export const MAX_STREAMED_BYTES = 1024 * 1024;

const schema = z.object({
  command: z.string().min(1),
  timeout: z.number().int().min(1).max(MAX_BASH_TIMEOUT_MS).optional(),
});

/** Stderr joins stdout (in order) before the command is read; a syntax error in it is reported there too. */
const MERGE_STDERR = "exec 2>&1\n";

export function bashTool(options: NonNullable<BuiltinToolsOptions["bash"]> = {}): BuiltinTool {
  const timeoutMs = options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  const capBytes = options.outputCapBytes ?? DEFAULT_BASH_OUTPUT_CAP_BYTES;
  return {
    name: "bash",
    description:
      "Runs a bash command in the workspace directory and returns its combined stdout and stderr and its exit code. " +
      `Stdin is closed (no interactive programs). The command is killed with every process it started after ${timeoutMs / 1000} s ` +
      `(timeout, in milliseconds, up to ${MAX_BASH_TIMEOUT_MS}, sets another limit); processes left running in the background are stopped when it ends. ` +
      `Output beyond ${capBytes} bytes keeps its start and end. Prefer read, edit, glob and grep over cat, sed, find and grep.`,
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", description: "The command line, run by bash -c in the workspace." },
        timeout: { type: "integer", minimum: 1, maximum: MAX_BASH_TIMEOUT_MS, description: `Milliseconds before the command is killed. Default ${timeoutMs}.` },
      },
      required: ["command"],
      additionalProperties: false,
    },
    kind: "command",
    approval: "command",
    title: (args, redact) => oneLine(field(args, "command") ?? "bash", 120, redact),
    run: (args, ctx) => runBash(args, ctx, timeoutMs, capBytes),
  };
}

async function runBash(args: unknown, ctx: ToolRunContext, defaultTimeoutMs: number, capBytes: number): Promise<ToolOutcome> {
  const parsed = parseArgs("bash", schema, args);
  if ("error" in parsed) return parsed.error;
  const { command, timeout = defaultTimeoutMs } = parsed.value;
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return { ...failure(root.refused), command };
  if (ctx.signal.aborted) return { ...failure("cancelled before it started"), command };
  const output = new CappedOutput(capBytes);
  const stream = streamer(ctx.onOutput);
  let end: CommandEnd;
  try {
    end = await runInShell(["bash", "/bin/sh"], command, root, ctx.signal, timeout, (chunk) => {
      output.push(chunk);
      stream.push(chunk);
    });
  } catch (error) {
    return { ...failure(`cannot run the command: ${(error as Error).message}`), command };
  }
  stream.end();
  return outcome(command, output, end, timeout);
}

/** Runs `command` with the first shell that exists. */
async function runInShell(shells: readonly string[], command: string, cwd: string, signal: AbortSignal, timeoutMs: number, onData: (chunk: Buffer) => void): Promise<CommandEnd> {
  for (const [i, shell] of shells.entries()) {
    try {
      return await runCommand({ command: shell, args: ["-c", MERGE_STDERR + command], cwd, signal, timeoutMs, onData });
    } catch (error) {
      if (!(error instanceof ExecutableNotFoundError) || i === shells.length - 1) throw error;
    }
  }
  throw new Error("no shell");
}

/** Decodes chunks for `onOutput` (never splitting a character) up to {@link MAX_STREAMED_BYTES}. */
function streamer(onOutput: ((chunk: string) => void) | undefined): { push(chunk: Buffer): void; end(): void } {
  const decoder = new StringDecoder("utf8");
  let streamed = 0;
  const emit = (text: string): void => {
    if (text !== "") onOutput?.(text);
  };
  return {
    push(chunk) {
      if (onOutput === undefined || streamed > MAX_STREAMED_BYTES) return;
      streamed += chunk.length;
      emit(decoder.write(chunk));
      if (streamed > MAX_STREAMED_BYTES) emit(`\n[live output stops here after ${MAX_STREAMED_BYTES} bytes; the command goes on]\n`);
    },
    end() {
      if (onOutput !== undefined && streamed <= MAX_STREAMED_BYTES) emit(decoder.end());
    },
  };
}

function outcome(command: string, output: CappedOutput, end: CommandEnd, timeoutMs: number): ToolOutcome {
  const text = output.total === 0 ? "(no output)" : output.text();
  const sep = text.endsWith("\n") ? "" : "\n";
  if (end.stopped === "timeout") return { output: `${text}${sep}[timed out after ${timeoutMs} ms: the command and its processes were killed]`, isError: true, command };
  if (end.stopped === "cancel") return { output: `${text}${sep}[cancelled: the command and its processes were killed]`, isError: true, command };
  if (end.exitCode === undefined) return { output: `${text}${sep}[killed by ${end.signal ?? "a signal"}]`, isError: true, command };
  if (end.exitCode === 0) return { output: text, isError: false, command, exitCode: 0 };
  return { output: `${text}${sep}[exit code ${end.exitCode}]`, isError: true, command, exitCode: end.exitCode };
}
