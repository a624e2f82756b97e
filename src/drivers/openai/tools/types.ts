/**
 * The contract between the OpenAI-compatible driver's loop and its built-in workspace tools
 * (read, write, edit, list, glob, grep, bash). The loop sends `name`, `description` and
 * `parameters` to the model, asks for approval of kind `approval` before `run`, and turns the
 * outcome into tool events and the tool result the model sees.
 */
import type { JsonSchema } from "../../../driver/vocabulary.js";
import type { FileChange, ToolKind } from "../../../events/types.js";

/** What one tool call runs with. */
export interface ToolRunContext {
  /** The run's workspace (absolute); every path a tool touches is confined to it. */
  workspace: string;
  /** Aborted when the run is cancelled: the tool stops at once (bash kills its process group). */
  signal: AbortSignal;
  /** Streaming output as it is produced (bash's stdout and stderr), for `tool.updated`. */
  onOutput?(chunk: string): void;
  /** The driver's redaction, for `ToolOutcome.published` (absent: no published copy is made). */
  redact?(text: string): string;
}

/** What a tool call produced: `output` is the tool result the model sees. */
export interface ToolOutcome {
  output: string;
  /**
   * What events and the stored conversation carry instead of `output`, when the tool cut text that
   * the model sees unredacted: the same cuts made after `ToolRunContext.redact`, since a secret across
   * a cut is no longer the registered value and redaction after it would leave its front.
   */
  published?: string;
  /** A refused or failed call (bad arguments, path outside the workspace, missing file, non-zero exit...). */
  isError: boolean;
  /** Files the call changed, each with a bounded unified diff (`file_change` tools). */
  files?: FileChange[];
  /** `kind: "command"`: the command line that ran. */
  command?: string;
  /** `kind: "command"`: its exit code (absent when it was killed by a signal, a timeout or a cancel). */
  exitCode?: number;
  /** The user stopped the turn inside this call (a subagent's call denied with `interrupt`): the caller's turn ends too. */
  interrupt?: boolean;
}

/** One built-in tool. */
export interface BuiltinTool {
  /** The name the model calls it by. */
  name: string;
  /** The rules the model follows, sent with the tool. */
  description: string;
  /** JSON Schema of the arguments, sent to the model. */
  parameters: JsonSchema;
  /** The `tool.started` kind. */
  kind: ToolKind;
  /** The approval kind a call needs before it runs; undefined: never asks. */
  approval?: "command" | "file_change";
  /**
   * A one-line title of a call for `tool.started`; tolerates invalid arguments. `redact`, the
   * driver's, runs before a title is cut: a secret across the cut would leave its front.
   */
  title(args: unknown, redact?: (text: string) => string): string;
  /** Runs one call. Never throws for the model's mistakes: those come back with `isError`. */
  run(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome>;
}

/** Options of the built-in tool set. */
export interface BuiltinToolsOptions {
  bash?: {
    /** A command is killed (with its process group) after this long; default 120 s. */
    timeoutMs?: number;
    /** Output kept for the model, in UTF-8 bytes (head and tail kept, middle dropped); default 30 KiB. */
    outputCapBytes?: number;
  };
  grep?: {
    /**
     * `true` (default): ripgrep when an `rg` is on PATH, else the JS search with the same output;
     * a path: that `rg` executable; `false`: always the JS search.
     */
    ripgrep?: boolean | string;
  };
}
