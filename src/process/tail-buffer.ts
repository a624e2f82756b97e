/**
 * Bounded byte tail. A child's stderr must be drained continuously (or the child blocks on a full
 * pipe) yet kept for diagnostics; keeping only the last N bytes keeps memory flat however chatty
 * the child is.
 */
export class TailBuffer {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #truncated = false;
  /** Whether the last dropped byte ended a line, so the held bytes start with a whole line. */
  #cutAtLineStart = true;

  constructor(limitBytes: number) {
    if (!Number.isInteger(limitBytes) || limitBytes < 1) throw new RangeError("limitBytes must be a positive integer");
    this.#limit = limitBytes;
  }

  /** Whether older bytes have been dropped. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** Bytes currently held (never more than the limit). */
  get size(): number {
    return this.#size;
  }

  push(chunk: Buffer | string): void {
    let buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    if (buf.length === 0) return;
    if (buf.length >= this.#limit) {
      if (buf.length > this.#limit) {
        this.#truncated = true;
        this.#cutAtLineStart = buf[buf.length - this.#limit - 1] === 0x0a;
      } else if (this.#size > 0) {
        this.#truncated = true;
        this.#cutAtLineStart = this.#chunks.at(-1)!.at(-1) === 0x0a;
      }
      // Copy, so a huge chunk is not retained through a view.
      buf = Buffer.from(buf.subarray(buf.length - this.#limit));
      this.#chunks = [buf];
      this.#size = buf.length;
      return;
    }
    this.#chunks.push(buf);
    this.#size += buf.length;
    while (this.#size > this.#limit) {
      const first = this.#chunks[0]!;
      const excess = this.#size - this.#limit;
      this.#truncated = true;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
        this.#cutAtLineStart = first.at(-1) === 0x0a;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
        this.#cutAtLineStart = first[excess - 1] === 0x0a;
      }
    }
  }

  /** The held bytes, oldest first. */
  bytes(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  /**
   * The held bytes as text. Once bytes were dropped, the first (cut) line is dropped too: a secret
   * cut in half at the boundary would otherwise leak its unrecognisable tail past redaction.
   */
  text(): string {
    let buf = this.bytes();
    if (this.#truncated && !this.#cutAtLineStart) {
      const nl = buf.indexOf(0x0a);
      buf = nl >= 0 ? buf.subarray(nl + 1) : buf.subarray(Math.min(buf.length, 512));
    }
    return buf.toString("utf8");
  }
}
