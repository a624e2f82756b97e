/**
 * A command's output kept for the model within a byte cap: the first half and the last half,
 * with a note of what was dropped between them (the start says what ran, the end how it failed).
 */
import { TailBuffer } from "../../../process/index.js";

export class CappedOutput {
  readonly #headLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: TailBuffer;
  #total = 0;

  constructor(capBytes: number) {
    this.#headLimit = Math.floor(capBytes / 2);
    this.#tail = new TailBuffer(Math.max(1, capBytes - this.#headLimit));
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    const room = this.#headLimit - this.#headBytes;
    if (room > 0) {
      const taken = chunk.subarray(0, room);
      this.#head.push(taken);
      this.#headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length > 0) this.#tail.push(chunk);
  }

  /** Bytes seen in all. */
  get total(): number {
    return this.#total;
  }

  text(): string {
    let head = Buffer.concat(this.#head, this.#headBytes);
    if (!this.#tail.truncated) return Buffer.concat([head, this.#tail.bytes()]).toString("utf8");
    // Both ends keep whole lines (the tail buffer drops its cut first line itself).
    const lastNewline = head.lastIndexOf(0x0a);
    if (lastNewline >= 0) head = head.subarray(0, lastNewline + 1);
    const tail = this.#tail.text();
    const omitted = this.#total - head.length - Buffer.byteLength(tail);
    const headText = head.toString("utf8");
    return `${headText}${headText.endsWith("\n") ? "" : "\n"}[... ${omitted} bytes of output omitted ...]\n${tail}`;
  }
}
