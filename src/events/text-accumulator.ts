/**
 * Appends many small strings without building a million-node rope: `+=` on a string creates a
 * cons-string node per append (tens of bytes each), so a run of a million deltas would cost tens
 * of MiB. Parts are joined in blocks instead.
 */
// Small blocks: a block is usually joined before the next young-generation collection, so the
// delta strings it holds die young instead of being copied and promoted (measured: ~10% less CPU
// per event on the event path than with 4096).
const BLOCK = 256;

export class TextAccumulator {
  #blocks: string[] = [];
  #parts: string[] = [];

  constructor(initial = "") {
    if (initial) this.#parts.push(initial);
  }

  append(text: string): void {
    this.#parts.push(text);
    if (this.#parts.length >= BLOCK) {
      this.#blocks.push(this.#parts.join(""));
      this.#parts = [];
    }
  }

  toString(): string {
    // One piece is returned as it is: a reader holding it and a later reader share one string.
    if (this.#blocks.length === 0 && this.#parts.length <= 1) return this.#parts[0] ?? "";
    if (this.#blocks.length === 1 && this.#parts.length === 0) return this.#blocks[0]!;
    const text = this.#blocks.join("") + this.#parts.join("");
    this.#blocks = text ? [text] : [];
    this.#parts = [];
    return text;
  }
}
