/**
 * An incremental text/event-stream parser (WHATWG HTML, "Server-sent events", §9.2.6): feed it
 * decoded text in whatever chunks the network delivers; it returns the frames completed so far.
 * Comments (heartbeats) produce nothing; `retry:` is reported on the frame it ends.
 */

export interface SseFrame {
  /** The `id:` of this frame, when it had one. */
  id?: string;
  /** `event:`; "message" when absent, as the spec says. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

export class SseParser {
  #buffer = "";
  /** The last chunk ended in "\r": a "\n" starting the next one belongs to the same line break. */
  #pendingCr = false;
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  #hasData = false;
  /** The latest `retry:` value, ms. */
  retryMs: number | undefined;

  /** Parse `chunk`; the frames it completes. */
  push(chunk: string): SseFrame[] {
    let text = chunk;
    if (this.#pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.#pendingCr = false;
    this.#buffer += text;
    const frames: SseFrame[] = [];
    let start = 0;
    for (let i = 0; i < this.#buffer.length; i++) {
      const ch = this.#buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const line = this.#buffer.slice(start, i);
      if (ch === 13) {
        if (i + 1 === this.#buffer.length) this.#pendingCr = true;
        else if (this.#buffer.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      const frame = this.#line(line);
      if (frame) frames.push(frame);
    }
    this.#buffer = this.#buffer.slice(start);
    return frames;
  }

  #line(line: string): SseFrame | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        this.#hasData = true;
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseFrame | undefined {
    const hasData = this.#hasData;
    const frame: SseFrame = { event: this.#event === "" ? "message" : this.#event, data: this.#data.join("\n") };
    if (this.#id !== undefined) frame.id = this.#id;
    this.#data = [];
    this.#event = "";
    this.#hasData = false;
    // The spec keeps the last event id across frames; the console wants it per frame, so it resets.
    this.#id = undefined;
    return hasData ? frame : undefined;
  }
}
