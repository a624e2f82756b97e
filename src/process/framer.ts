/**
 * Synchronous NDJSON framer: bytes in, decoded lines out. Kept free of streams and promises so the
 * hot path (scan for `\n`, validate, parse) does no per-byte work and no per-line allocation
 * beyond the parsed value.
 */
import { isUtf8 } from "node:buffer";

import { ProtocolError } from "../errors/index.js";
import { redactThenClip } from "../redact/clip.js";

/** Default bound of one line: large tool outputs fit, a runaway child cannot exhaust memory. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Length of the excerpt attached to an `invalid_json` frame, before its "…" when cut. */
export const EXCERPT_CHARS = 120;

export type JsonLine =
  | { kind: "json"; value: unknown }
  | {
      kind: "error";
      /** Code `frame_too_large`, `invalid_utf8` or `invalid_json`. */
      error: ProtocolError;
      /** A short redacted start of the offending line (only for `invalid_json`). */
      excerpt?: string;
      /** 1-based line number in the stream. */
      line: number;
    };

export interface NdjsonFramerOptions {
  /** Longest accepted line, in bytes, terminator excluded. Default 8 MiB. */
  maxLineBytes?: number;
  /** Redacts excerpts of invalid lines. Default: leave them as they are. */
  redact?: (text: string) => string;
  /**
   * Decodes the lines a protocol knows the exact form of, faster than `JSON.parse`: returns
   * exactly what `JSON.parse` gives for the line, or `undefined` to leave the line to it.
   */
  decode?: ((line: string) => unknown) | undefined;
}

const LF = 0x0a;
const REPLACEMENT = "\uFFFD";
const CR = 0x0d;

/**
 * Splits a byte stream into JSON lines. Handles chunks split anywhere (even inside a multi-byte
 * character), CRLF, blank lines (skipped), a leading BOM and a final unterminated line. A line
 * over the limit gives one `frame_too_large` as soon as the limit is crossed; the rest of it is
 * dropped without being buffered and framing resumes after its newline. Never throws for input.
 */
export class NdjsonFramer {
  readonly #max: number;
  readonly #redact: (text: string) => string;
  readonly #fastDecode: ((line: string) => unknown) | undefined;
  /** Pieces of the current unterminated line; at most max + 1 bytes (room for a CR). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Skipping the remainder of an oversized line. */
  #discarding = false;
  #lineNo = 0;
  #first = true;

  constructor(options: NdjsonFramerOptions = {}) {
    this.#max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!(this.#max >= 1)) throw new RangeError("maxLineBytes must be positive");
    this.#redact = options.redact ?? ((text) => text);
    this.#fastDecode = options.decode;
  }

  /** Bytes held for an unterminated line. */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** Frames `chunk`, appending complete lines to `out`. */
  push(chunk: Buffer, out: JsonLine[]): void {
    let start = 0;
    let nl = chunk.indexOf(LF);

    if (this.#pendingBytes > 0 || this.#discarding) {
      if (nl < 0) {
        if (!this.#discarding) {
          this.#pending.push(chunk);
          this.#pendingBytes += chunk.length;
          if (this.#pendingBytes > this.#max + 1) this.#startDiscarding(out);
        }
        return;
      }
      if (this.#discarding) {
        this.#discarding = false;
      } else {
        this.#pending.push(chunk.subarray(0, nl));
        const line = Buffer.concat(this.#pending, this.#pendingBytes + nl);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#decode(line, 0, line.length, false, out);
      }
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }

    if (nl >= 0) {
      // Newlines are character boundaries in UTF-8: one validation of the whole run of complete
      // lines usually stands in for one per line.
      const last = chunk.lastIndexOf(LF);
      // Decode the whole run once and split the string: one decode per chunk, not per line. The
      // decoder turns an invalid sequence into U+FFFD, so only a run holding one (or a genuine
      // U+FFFD) is validated line by line; a run of one-byte characters is not searched at all.
      const run = chunk.toString("utf8", start, last);
      if (!run.includes(REPLACEMENT)) {
        this.#parseRun(run, out);
        start = last + 1;
      } else {
        do {
          this.#decode(chunk, start, nl, false, out);
          start = nl + 1;
          nl = chunk.indexOf(LF, start);
        } while (nl >= 0);
      }
    }

    const rest = chunk.length - start;
    if (rest > 0) {
      if (rest > this.#max + 1) {
        this.#startDiscarding(out);
      } else {
        // Copied: a short tail must not pin a large chunk in memory.
        this.#pending.push(start === 0 ? chunk : Buffer.from(chunk.subarray(start)));
        this.#pendingBytes = rest;
      }
    }
  }

  /** Frames a final line that had no terminator. */
  end(out: JsonLine[]): void {
    if (this.#pendingBytes > 0) {
      const line = Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#decode(line, 0, line.length, false, out);
    }
    this.#discarding = false;
  }

  #startDiscarding(out: JsonLine[]): void {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#discarding = true;
    this.#first = false;
    out.push(this.#tooLarge(++this.#lineNo));
  }

  #tooLarge(line: number): JsonLine {
    return {
      kind: "error",
      error: new ProtocolError(`line ${line} exceeds the ${this.#max}-byte frame limit`, "frame_too_large"),
      line,
    };
  }

  /** Parses complete, valid UTF-8 lines joined by LF (no trailing LF). */
  #parseRun(text: string, out: JsonLine[]): void {
    let from = 0;
    for (;;) {
      const nl = text.indexOf("\n", from);
      const end = nl < 0 ? text.length : nl;
      this.#parseLine(text, from, end, out);
      if (nl < 0) return;
      from = nl + 1;
    }
  }

  #parseLine(text: string, start: number, end: number, out: JsonLine[]): void {
    const line = ++this.#lineNo;
    const first = this.#first;
    this.#first = false;
    if (end > start && text.charCodeAt(end - 1) === CR) end--;
    if (end === start) return;
    // A UTF-8 byte is at most one UTF-16 unit; only long lines need an exact byte count.
    if (end - start > this.#max || ((end - start) * 3 > this.#max && Buffer.byteLength(text.slice(start, end)) > this.#max)) {
      out.push(this.#tooLarge(line));
      return;
    }
    if (first && text.charCodeAt(start) === 0xfeff) start++;
    const body = start === 0 && end === text.length ? text : text.slice(start, end);
    try {
      out.push({ kind: "json", value: this.#parse(body) });
    } catch {
      if (body.trim() === "") return;
      out.push(this.#invalidJson(line, body));
    }
  }

  /** The line's JSON value; throws when it is not JSON. */
  #parse(text: string): unknown {
    if (this.#fastDecode !== undefined) {
      const value = this.#fastDecode(text);
      if (value !== undefined) return value;
    }
    return JSON.parse(text) as unknown;
  }

  #invalidJson(line: number, text: string): JsonLine {
    return {
      kind: "error",
      error: new ProtocolError(`line ${line} is not valid JSON`, "invalid_json"),
      // Redacted before the cut: a secret across the excerpt's end would leave its front.
      excerpt: redactThenClip(text, this.#redact, EXCERPT_CHARS + 1),
      line,
    };
  }

  #decode(buf: Buffer, start: number, end: number, knownValid: boolean, out: JsonLine[]): void {
    const line = ++this.#lineNo;
    const first = this.#first;
    this.#first = false;
    if (end > start && buf[end - 1] === CR) end--;
    if (end === start) return;
    if (end - start > this.#max) {
      out.push(this.#tooLarge(line));
      return;
    }
    if (!knownValid && !isUtf8(buf.subarray(start, end))) {
      out.push({ kind: "error", error: new ProtocolError(`line ${line} is not valid UTF-8`, "invalid_utf8"), line });
      return;
    }
    // A stream may start with a byte-order mark; it is not part of the JSON text.
    if (first && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    const text = buf.toString("utf8", start, end);
    try {
      out.push({ kind: "json", value: this.#parse(text) });
    } catch {
      if (text.trim() === "") return;
      out.push(this.#invalidJson(line, text));
    }
  }
}
