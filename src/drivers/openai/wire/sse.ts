/**
 * Server-sent events split from decoded body text exactly as the official `openai` client's
 * `Stream` splits them — the same messages, released at the same points of the body — without its
 * chain of async generators and per-chunk byte copies, which cost a short turn more than the rest
 * of its decoding:
 *
 * - text is handed on only up to the end of the last blank-line pattern in it (`\n\n`, `\r\r`,
 *   `\r\n\r\n`, matched first to last as the client does); the rest waits for more of the body or
 *   its end, so a body cut short delivers no more than the client would have;
 * - lines end at `\n`, `\r\n` or `\r`; a `\r` at the end of the text waits for the next character
 *   (a `\n` after it belongs to it, and the body's end ends it);
 * - a line's leading byte order mark is dropped (the client decodes each line on its own);
 * - a blank line ends a message when it has data or a non-empty `event`; `:` lines are comments;
 *   a field's value loses one leading space; `data` lines join with `\n`; other fields are ignored.
 */

/** One message. */
export interface SseMessage {
  /** The `event:` field; null when the message had none. */
  event: string | null;
  data: string;
  /** The message's lines (comments included), for a log of a message that does not parse. */
  raw: string[];
}

const LF = 10;
const COLON = 58;
const SPACE = 32;
const BOM = 0xfeff;

/**
 * Where the text handed on ends: after the last of the blank-line patterns at or after `from`,
 * matched first to last (a match ends where the search for the next begins); 0 when there is none.
 * Each pattern's next place is kept until passed, so a chunk of many messages is searched once.
 */
function releaseEnd(text: string, from: number): number {
  let release = 0;
  let lf = text.indexOf("\n\n", from);
  // Most bodies have no `\r` at all: one search settles it.
  const carriage = text.indexOf("\r", from) >= 0;
  let crcr = carriage ? text.indexOf("\r\r", from) : -1;
  let crlf = carriage ? text.indexOf("\r\n\r\n", from) : -1;
  for (;;) {
    // Once one is not found it never is again.
    if (lf >= 0 && lf < from) lf = text.indexOf("\n\n", from);
    if (crcr >= 0 && crcr < from) crcr = text.indexOf("\r\r", from);
    if (crlf >= 0 && crlf < from) crlf = text.indexOf("\r\n\r\n", from);
    // The first to start wins (no two start at one place).
    if (lf >= 0 && (crcr < 0 || lf < crcr) && (crlf < 0 || lf < crlf)) from = lf + 2;
    else if (crcr >= 0 && (crlf < 0 || crcr < crlf)) from = crcr + 2;
    else if (crlf >= 0) from = crlf + 4;
    else return release;
    release = from;
  }
}

/** Feed it the body's text as it comes with {@link push}, {@link end} it, and take its messages with {@link next}. */
export class SseDecoder {
  /** Text not handed on yet: after the last blank-line pattern. */
  #held = "";
  /** The unfinished line of the text handed on. */
  #line = "";
  /** The text handed on ended in `\r`: `#line` is complete, and a `\n` next belongs to it. */
  #carriage = false;
  #event: string | null = null;
  #data: string[] = [];
  #raw: string[] = [];
  readonly #messages: SseMessage[] = [];
  #taken = 0;

  /** How many characters wait for a blank line: what a stream that never ends a message makes grow. */
  get held(): number {
    return this.#held.length;
  }

  /** The next message complete so far; undefined when none is (yet). */
  next(): SseMessage | undefined {
    if (this.#taken < this.#messages.length) return this.#messages[this.#taken++];
    if (this.#taken > 0) {
      this.#messages.length = 0;
      this.#taken = 0;
    }
    return undefined;
  }

  /** More of the body's text. */
  push(text: string): void {
    if (text === "") return;
    const held = this.#held + text;
    // A pattern that was not in the held text ends in the new text.
    const release = releaseEnd(held, Math.max(0, this.#held.length - 3));
    if (release === 0) {
      this.#held = held;
      return;
    }
    this.#held = held.slice(release);
    this.#lines(release === held.length ? held : held.slice(0, release));
  }

  /**
   * The body ended: what was held is handed on, and a last `\r` ends its line. An unfinished line
   * is dropped: a message ends only at a blank line after it.
   */
  end(): void {
    const held = this.#held;
    this.#held = "";
    if (held !== "") this.#lines(held);
    if (this.#carriage) {
      const line = this.#line;
      this.#carriage = false;
      this.#field(line);
    }
    this.#line = "";
  }

  #lines(text: string): void {
    let at = 0;
    if (this.#carriage) {
      this.#carriage = false;
      if (text.charCodeAt(0) === LF) at = 1;
      const line = this.#line;
      this.#line = "";
      this.#field(line);
    }
    let lf = text.indexOf("\n", at);
    let cr = text.indexOf("\r", at);
    while (at < text.length) {
      // Once one is not found it never is again.
      if (lf >= 0 && lf < at) lf = text.indexOf("\n", at);
      if (cr >= 0 && cr < at) cr = text.indexOf("\r", at);
      const stop = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (stop < 0) {
        this.#line += text.slice(at);
        return;
      }
      const line = this.#line === "" ? text.slice(at, stop) : this.#line + text.slice(at, stop);
      this.#line = "";
      if (stop === lf) at = stop + 1;
      else if (stop + 1 === text.length) {
        // Whether a `\n` follows is for the next text to tell.
        this.#line = line;
        this.#carriage = true;
        return;
      } else at = text.charCodeAt(stop + 1) === LF ? stop + 2 : stop + 1;
      this.#field(line);
    }
  }

  #field(text: string): void {
    const line = text.charCodeAt(0) === BOM ? text.slice(1) : text;
    if (line === "") {
      if (!this.#event && this.#data.length === 0) return;
      this.#messages.push({ event: this.#event, data: this.#data.length === 1 ? this.#data[0]! : this.#data.join("\n"), raw: this.#raw });
      this.#event = null;
      this.#data = [];
      this.#raw = [];
      return;
    }
    this.#raw.push(line);
    if (line.charCodeAt(0) === COLON) return;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    if (name !== "data" && name !== "event") return;
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === SPACE) value = value.slice(1);
    if (name === "event") this.#event = value;
    else this.#data.push(value);
  }
}
