/**
 * Lines of a byte stream, each with only its head kept: a file of one 200 MB line (minified JSON)
 * is read in chunks and never held whole, as a line reader holding each line as a string would
 * (its peak memory was over twice the line's size). Lines end at `\n`, `\r\n` or `\r` (`\r\n`
 * split across chunks is one end), as node's readline splits them; text is decoded as UTF-8 with
 * a byte order mark kept.
 */

const LF = 10;
const CR = 13;

/** One line: the decoded text of its first `keepBytes` bytes, and its length. */
export interface LineHead {
  /** The line's start as text (the whole line when `whole`). */
  head: string;
  /** The line's length in bytes, its end excluded. */
  bytes: number;
  /** Whether `head` is the whole line. */
  whole: boolean;
}

/** Takes one line; returns true to stop splitting. */
export type LineTaker = (line: LineHead) => boolean;

export class LineSplitter {
  /** Bytes of the head kept for lines started from now on. */
  keepBytes: number;
  #pieces: Buffer[] = [];
  #kept = 0;
  #bytes = 0;
  /** The last chunk ended in `\r`: a `\n` first in the next belongs to that line's end. */
  #carriage = false;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(keepBytes: number) {
    this.keepBytes = keepBytes;
  }

  /** Whether a line has begun that has not ended yet (a byte of it was seen). */
  get started(): boolean {
    return this.#bytes > 0;
  }

  /** Splits `chunk`, handing each line that ends in it to `take`; true when `take` stopped it. */
  push(chunk: Buffer, take: LineTaker): boolean {
    let at = 0;
    if (this.#carriage) {
      this.#carriage = false;
      if (chunk.length > 0 && chunk[0] === LF) at = 1;
    }
    let lf = chunk.indexOf(LF, at);
    let cr = chunk.indexOf(CR, at);
    while (at < chunk.length) {
      // Once one is not found it never is again.
      if (lf >= 0 && lf < at) lf = chunk.indexOf(LF, at);
      if (cr >= 0 && cr < at) cr = chunk.indexOf(CR, at);
      const stop = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (stop < 0) {
        this.#take(chunk, at, chunk.length);
        return false;
      }
      this.#take(chunk, at, stop);
      if (stop === lf) at = stop + 1;
      else if (stop + 1 === chunk.length) {
        this.#carriage = true;
        at = chunk.length;
      } else at = chunk[stop + 1] === LF ? stop + 2 : stop + 1;
      if (take(this.#finish())) return true;
    }
    return false;
  }

  /** The stream ended: its last line, when it did not end with a line end. */
  end(take: LineTaker): void {
    this.#carriage = false;
    if (this.#bytes > 0) take(this.#finish());
  }

  #take(chunk: Buffer, from: number, to: number): void {
    this.#bytes += to - from;
    const room = this.keepBytes - this.#kept;
    if (room <= 0 || to === from) return;
    const end = Math.min(to, from + room);
    // A copy: the chunk itself is not kept alive by the few bytes taken from it.
    this.#pieces.push(Buffer.from(chunk.subarray(from, end)));
    this.#kept += end - from;
  }

  #finish(): LineHead {
    const head = this.#pieces.length === 0 ? "" : this.#decoder.decode(this.#pieces.length === 1 ? this.#pieces[0] : Buffer.concat(this.#pieces, this.#kept));
    const line: LineHead = { head, bytes: this.#bytes, whole: this.#kept === this.#bytes };
    this.#pieces = [];
    this.#kept = 0;
    this.#bytes = 0;
    return line;
  }
}
