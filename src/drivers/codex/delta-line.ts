/**
 * The line that makes up the bulk of every Codex turn, an `item/agentMessage/delta` notification,
 * decoded by one regular expression instead of `JSON.parse` (measured: about 0.4 of its CPU time
 * on such a line). Only a line in the exact form app-server writes it is taken — no whitespace, the
 * fields in their wire order, identifiers without escapes — and its value is then exactly what
 * `JSON.parse` gives for it. Every other line is declined (`undefined`) and parsed as usual.
 */
const METHOD = "item/agentMessage/delta";
const PREFIX = `{"method":"${METHOD}","params":{"threadId":"`;

/** An identifier: a JSON string's content without escapes. */
const ID = String.raw`([^"\\\u0000-\u001f]*)`;
/** Text: a JSON string's content, escapes included (they are decoded by `JSON.parse`). */
const TEXT = String.raw`((?:[^"\\\u0000-\u001f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)`;
/** `emittedAtMs`, when a version writes it: an integer well inside the exact range of a double. */
const INTEGER = String.raw`(0|-?[1-9][0-9]{0,14})`;
const DELTA_LINE = new RegExp(
  String.raw`^\{"method":"item/agentMessage/delta","params":\{"threadId":"${ID}","turnId":"${ID}","itemId":"${ID}","delta":"${TEXT}"\}(?:,"emittedAtMs":${INTEGER})?\}$`,
);

/** The value of an `item/agentMessage/delta` line, as `JSON.parse` gives it; `undefined` for any other line. */
export function decodeDeltaLine(line: string): unknown {
  if (!line.startsWith(PREFIX)) return undefined;
  const match = DELTA_LINE.exec(line);
  if (match === null) return undefined;
  const text = match[4]!;
  const params = { threadId: match[1]!, turnId: match[2]!, itemId: match[3]!, delta: text.includes("\\") ? (JSON.parse(`"${text}"`) as string) : text };
  const emittedAtMs = match[5];
  return emittedAtMs === undefined ? { method: METHOD, params } : { method: METHOD, params, emittedAtMs: Number(emittedAtMs) };
}
