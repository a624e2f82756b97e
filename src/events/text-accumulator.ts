/**
 * Appends many small strings without building a million-node rope: `+=` on a string creates a
 * cons-string node per append (tens of bytes each), so a run of a million deltas would cost tens
 * of MiB. Parts are joined in blocks instead.
 */
const BLOCK = 4096;

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
    const text = this.#blocks.join("") + this.#parts.join("");
    this.#blocks = text ? [text] : [];
    this.#parts = [];
    return text;
  }
}
