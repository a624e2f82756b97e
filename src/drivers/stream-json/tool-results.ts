/**
 * What a command tool's result says about its exit, in each dialect.
 *
 * - CodeBuddy states it: the tool_result block's `_meta.rawResponse` carries `exitCode` (and
 *   `is_error` for a non-zero exit, while the block itself says `is_error: false`).
 * - Claude Code turns a non-zero exit into an error result whose text starts `Exit code N`. Its
 *   successful result (`tool_use_result` with `stdout`) therefore means exit 0 — unless the command
 *   was interrupted or moved to the background, or the CLI attached a `returnCodeInterpretation`
 *   (a non-zero code it does not count as a failure, e.g. grep finding nothing); then the code is
 *   not known and none is given.
 */
import { isObject, str } from "./wire.js";

/** CodeBuddy's `_meta.rawResponse` of a tool_result block, when present. */
function rawResponse(block: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = isObject(block._meta) ? block._meta : undefined;
  return isObject(meta?.rawResponse) ? meta.rawResponse : undefined;
}

const EXIT_CODE_LINE = /^Exit code (\d{1,3})\b/;

/** The exit code of a command tool's result, when the CLI reports one (see the module doc). */
export function commandExitCode(block: Record<string, unknown>, text: string | undefined, toolUseResult: unknown): number | undefined {
  const raw = rawResponse(block);
  if (raw !== undefined) return typeof raw.exitCode === "number" && Number.isInteger(raw.exitCode) ? raw.exitCode : undefined;
  if (block.is_error === true) {
    const match = text === undefined ? null : EXIT_CODE_LINE.exec(text);
    return match ? Number(match[1]) : undefined;
  }
  if (!isObject(toolUseResult) || typeof toolUseResult.stdout !== "string") return undefined;
  const unknownCode =
    toolUseResult.interrupted === true || str(toolUseResult.backgroundTaskId) !== undefined || (str(toolUseResult.returnCodeInterpretation) ?? "") !== "";
  return unknownCode ? undefined : 0;
}

/** True when the dialect marks a command result as failed although the block says `is_error: false` (CodeBuddy). */
export function commandFailed(block: Record<string, unknown>): boolean {
  return rawResponse(block)?.is_error === true;
}
