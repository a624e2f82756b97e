/**
 * NDJSON over streams, the wire format of every stdio provider protocol. Reading is pull-based:
 * the consumer's pace pauses the stream, so a slow consumer fills the OS pipe and blocks the child
 * instead of growing memory (DESIGN §5). Bad lines are values, never exceptions: one malformed
 * frame must not end a session.
 */
import { once } from "node:events";
import type { Writable } from "node:stream";

import { ProtocolError } from "../errors/index.js";
import { redactText } from "../redact/redact.js";
import { NdjsonFramer, type JsonLine } from "./framer.js";

export interface ReadJsonLinesOptions {
  /** Longest accepted line, in bytes, terminator excluded. Default 8 MiB. */
  maxLineBytes?: number;
  /** Redacts excerpts of invalid lines. Default: the process-wide redactor. */
  redact?: (text: string) => string;
  /** Ends the iteration early; the source is destroyed, as when breaking out of the loop. */
  signal?: AbortSignal;
  /** A faster decoder for lines of a known exact form, see `NdjsonFramerOptions.decode`. */
  decode?: ((line: string) => unknown) | undefined;
}

type Chunk = Uint8Array | string;

/**
 * Iterates the JSON lines of a byte stream (see `NdjsonFramer` for the framing rules). Only
 * failures of the source itself are thrown.
 */
export function readJsonLines(source: AsyncIterable<Chunk>, options: ReadJsonLinesOptions = {}): AsyncIterableIterator<JsonLine> {
  return new JsonLineReader(source, options);
}

/**
 * Like {@link readJsonLines}, but yields the lines of each source chunk together (never an empty
 * batch). A consumer that handles most lines synchronously pays one promise per chunk instead of
 * one per line; the next chunk is read only when it asks for the next batch, so a slow consumer
 * still pauses the source.
 */
export function readJsonLineBatches(source: AsyncIterable<Chunk>, options: ReadJsonLinesOptions = {}): AsyncIterableIterator<readonly JsonLine[]> {
  const reader = new JsonLineReader(source, options);
  const batches: AsyncIterableIterator<readonly JsonLine[]> = {
    [Symbol.asyncIterator]: () => batches,
    next: () => reader.nextBatch(),
    return: async () => {
      await reader.return();
      return DONE;
    },
  };
  return batches;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Hand-written rather than an async generator: a generator pays several promise hops per
 * yielded line, which costs more than parsing a typical line. Here each source chunk is framed
 * at once into a queue that `next()` then serves with one resolved promise per line.
 */
class JsonLineReader implements AsyncIterableIterator<JsonLine> {
  readonly #source: AsyncIterable<Chunk>;
  readonly #iterator: AsyncIterator<Chunk>;
  readonly #framer: NdjsonFramer;
  readonly #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;
  /** Ends the read in flight early; set only while one is. */
  #wakeRead: (() => void) | undefined;
  #queue: JsonLine[] = [];
  #head = 0;
  #finished = false;
  #pulling: Promise<IteratorResult<JsonLine, undefined>> | undefined;

  constructor(source: AsyncIterable<Chunk>, options: ReadJsonLinesOptions) {
    this.#source = source;
    this.#iterator = source[Symbol.asyncIterator]();
    this.#framer = new NdjsonFramer({ maxLineBytes: options.maxLineBytes, redact: options.redact ?? redactText, decode: options.decode });
    this.#signal = options.signal;
    // One listener for the reader's life. Racing each read against a shared abort promise would
    // leave one reaction per read on that promise, each holding its chunk until the abort.
    if (this.#signal !== undefined && !this.#signal.aborted) {
      this.#onAbort = () => this.#wakeRead?.();
      this.#signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<JsonLine, undefined>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as unknown as JsonLine;
      return Promise.resolve({ done: false, value });
    }
    if (this.#finished) return Promise.resolve(DONE);
    // Calls made before the previous one settled are served in order.
    if (this.#pulling !== undefined) return this.#pulling.then(() => this.next());
    const pulling = this.#pull();
    this.#pulling = pulling;
    void pulling.then(
      () => (this.#pulling = undefined),
      () => (this.#pulling = undefined),
    );
    return pulling;
  }

  async return(): Promise<IteratorResult<JsonLine, undefined>> {
    await this.#finish(true);
    return DONE;
  }

  /** Every line not served yet, or those of the next chunk(s) that hold any. Not mixed with `next()`. */
  async nextBatch(): Promise<IteratorResult<JsonLine[], undefined>> {
    if (this.#head >= this.#queue.length && !(await this.#fill())) return DONE;
    const batch = this.#head === 0 ? this.#queue : this.#queue.slice(this.#head);
    // The batch is the caller's now: the framer fills a new queue.
    this.#queue = [];
    this.#head = 0;
    return { done: false, value: batch };
  }

  async #pull(): Promise<IteratorResult<JsonLine, undefined>> {
    if (!(await this.#fill())) return DONE;
    const value = this.#queue[this.#head]!;
    this.#queue[this.#head++] = undefined as unknown as JsonLine;
    return { done: false, value };
  }

  /** Reads chunks until the queue holds a line (true) or the source has ended (false). */
  async #fill(): Promise<boolean> {
    for (;;) {
      if (this.#finished) return false;
      let step: IteratorResult<Chunk>;
      try {
        step = await this.#read();
      } catch (err) {
        await this.#finish(false);
        throw err;
      }
      this.#queue = [];
      this.#head = 0;
      if (step.done) {
        if (!this.#signal?.aborted) this.#framer.end(this.#queue);
        await this.#finish(this.#signal?.aborted === true);
      } else {
        const chunk = step.value;
        this.#framer.push(typeof chunk === "string" ? Buffer.from(chunk) : toBuffer(chunk), this.#queue);
      }
      if (this.#head < this.#queue.length) return true;
    }
  }

  #read(): Promise<IteratorResult<Chunk>> {
    if (this.#signal === undefined) return this.#iterator.next();
    if (this.#signal.aborted) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.#wakeRead = () => resolve(DONE);
      // After an abort this read settles later; its outcome no longer matters.
      this.#iterator.next().then(
        (step) => {
          this.#wakeRead = undefined;
          resolve(step);
        },
        (err: unknown) => {
          this.#wakeRead = undefined;
          reject(err);
        },
      );
    });
  }

  /** Stops reading. `early`: the consumer or the signal ended it before the source did. */
  async #finish(early: boolean): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#onAbort !== undefined) this.#signal!.removeEventListener("abort", this.#onAbort);
    if (!early) return;
    if (this.#signal?.aborted) {
      // A read may still be in flight and an iterator's return() would wait for it: destroy the
      // source directly so that read settles now.
      const destroy = (this.#source as { destroy?: () => void }).destroy;
      if (typeof destroy === "function") destroy.call(this.#source);
      void this.#iterator.return?.()?.catch(() => {});
    } else {
      // Releases (and, for node streams, destroys) the source.
      await this.#iterator.return?.();
    }
  }
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Writes `value` as one NDJSON line, waiting for `drain` when the stream's buffer is full so a
 * slow reader slows the writer instead of growing memory. Rejects with `peer_exited` when the
 * stream is closed before the line is accepted.
 */
export async function writeJsonLine(stream: Writable, value: unknown): Promise<void> {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError("value is not serializable as JSON");
  if (!stream.writable || stream.destroyed) throw new ProtocolError("the peer's input is closed", "peer_exited");
  if (stream.write(`${text}\n`)) return;
  await waitForDrain(stream);
}

async function waitForDrain(stream: Writable): Promise<void> {
  const ac = new AbortController();
  try {
    await Promise.race([
      once(stream, "drain", { signal: ac.signal }),
      once(stream, "close", { signal: ac.signal }).then(() => {
        throw new ProtocolError("the peer's input closed while writing", "peer_exited");
      }),
    ]);
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    // `once` rejects on an 'error' event of the stream.
    throw new ProtocolError("the peer's input failed while writing", "peer_exited", { cause: err });
  } finally {
    ac.abort();
  }
}
