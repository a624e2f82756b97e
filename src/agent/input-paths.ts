/**
 * A run's input copies live at run-owned temporary paths that must not reach the host: a provider
 * may echo one (Gemini names the file in its permission request). The run's redactor shows
 * `<input:NAME>` for a copy and `<inputs>` for its directory in every event field but model
 * output, and in every error.
 */
import { realpath } from "node:fs/promises";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type { ResolvedInput } from "../driver/types.js";

/** Each spelling of each input copy's path and directory, mapped to its placeholder. */
export async function inputPathPlaceholders(inputs: readonly ResolvedInput[]): Promise<Map<string, string>> {
  const placeholders = new Map<string, string>();
  for (const input of inputs) {
    const placeholder = `<input:${input.name}>`;
    // The path as given, as a file URL (how ACP links it) and resolved (a symlinked temp root).
    const resolved = await realpath(input.localPath).catch(() => input.localPath);
    for (const path of new Set([input.localPath, resolved])) {
      placeholders.set(pathToFileURL(path).href, placeholder);
      placeholders.set(path, placeholder);
      placeholders.set(dirname(path), "<inputs>");
    }
  }
  return placeholders;
}
