/**
 * The JSON value of a final message, exactly as documented: the whole message (trimmed) when it
 * parses as JSON; otherwise the last fenced code block whose info string is empty or `json`,
 * when it parses. Nothing else is guessed at: prose around a bare value is not searched.
 */
const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*\1[ \t]*$/gm;

export type Extraction = { ok: true; value: unknown } | { ok: false };

export function extractJson(text: string): Extraction {
  const whole = parse(text.trim());
  if (whole.ok) return whole;
  const blocks = [...text.matchAll(FENCE)].filter((match) => match[2] === "" || match[2]!.toLowerCase() === "json");
  const last = blocks.at(-1);
  return last === undefined ? { ok: false } : parse(last[3]!.trim());
}

function parse(text: string): Extraction {
  if (text === "") return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
