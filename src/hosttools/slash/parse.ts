/**
 * The command-line grammar: `/word args…`. The word is a letter followed by letters, digits, `_`,
 * `-`, `:` or `.` (case-insensitive); anything else — a path such as `/usr/bin`, `//text`, a lone
 * `/` — is plain text for the session.
 */

const COMMAND_WORD = /^[a-z][a-z0-9_:.-]*$/i;

/** The command word and its arguments, or undefined when `text` is no command line. */
export function parseCommandLine(text: string): { name: string; args: string[]; rest: string } | undefined {
  const line = text.trimStart();
  if (!line.startsWith("/")) return undefined;
  const end = line.search(/\s/);
  const word = (end === -1 ? line : line.slice(0, end)).slice(1);
  if (!COMMAND_WORD.test(word)) return undefined;
  const rest = end === -1 ? "" : line.slice(end).trim();
  return { name: word.toLowerCase(), args: splitArguments(rest), rest };
}

/** Whether `word` (without the slash) is a valid command word. */
export function isCommandWord(word: string): boolean {
  return COMMAND_WORD.test(word);
}

/** Whether `rest` leaves a `"` open (an unbalanced quote: the operator's line is cut or mistyped). */
export function hasUnclosedQuote(rest: string): boolean {
  let quoted = false;
  for (let i = 0; i < rest.length; i++) {
    if (quoted && rest[i] === "\\" && rest[i + 1] === '"') i++;
    else if (rest[i] === '"') quoted = !quoted;
  }
  return quoted;
}

/**
 * Free text given as one quoted argument (`"Ship v2"`) without its quotes; any other text as typed
 * (quotes inside a sentence are the operator's).
 */
export function unquotedText(text: string): string {
  const trimmed = text.trim();
  if (!/^"(?:[^"\\]|\\.)*"$/.test(trimmed)) return trimmed;
  const args = splitArguments(trimmed);
  return args.length === 1 ? args[0]! : trimmed;
}

/** Split at white space; `"…"` keeps white space inside one argument and `\"` is a quote in it. */
export function splitArguments(rest: string): string[] {
  const args: string[] = [];
  let current = "";
  let quoted = false;
  let started = false;
  for (let i = 0; i < rest.length; i++) {
    const char = rest[i]!;
    if (quoted && char === "\\" && rest[i + 1] === '"') {
      current += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && /\s/.test(char)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}
