/** The instruction appended to the prompt in `mode: "prompted"` (documented verbatim in docs/api.md). */
import type { JsonSchema } from "../../driver/vocabulary.js";

export function promptedInstruction(schema: JsonSchema): string {
  return [
    "",
    "",
    "Reply with a single JSON value that conforms to the JSON Schema below, and nothing else: no prose before or after it.",
    "JSON Schema:",
    JSON.stringify(schema),
  ].join("\n");
}
