/**
 * One pass over an input's bytes: each chunk is checked against the limits before it is written,
 * then written to the run-owned file while it is hashed, so size, SHA-256 and the copy come from
 * the same bytes. Reading stops as soon as a limit is crossed.
 *
 * Files are read in large chunks into two alternating buffers: while one chunk is written (on the
 * thread pool) and hashed (on this thread), the next one is already being read.
 */
import { createHash, type Hash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { inputFailure, type InputErrorDetails } from "./errors.js";
import type { EffectiveLimit } from "./limits.js";
import { contentMatchesMediaType, signatureBytesNeeded } from "./media-type.js";
import { Aborted, type FileSource, type StreamSource } from "./sources.js";

/** Read size for files. Large reads keep the per-chunk overhead negligible next to hashing. */
export const FILE_CHUNK_BYTES = 2 * 1024 * 1024;
const MIN_BUFFER_BYTES = 64 * 1024;

export interface MeterOptions {
  /** The per-input limit (the smaller of the host's and the driver's). */
  maxBytes: EffectiveLimit;
  /** Bytes taken by the run's earlier inputs. */
  totalUsed: number;
  /** The run's total limit. */
  maxTotal: number;
  mediaType: string;
  declaredSize?: number;
  declaredSha256?: string;
}

/** Counts, limits, hashes and checks the leading bytes of one input. */
export class Meter {
  /** Bytes admitted so far. */
  bytes = 0;
  readonly #options: MeterOptions;
  readonly #details: InputErrorDetails;
  readonly #hash: Hash = createHash("sha256");
  readonly #head: Buffer;
  #headLength = 0;
  #headChecked: boolean;
  /** A file source's size at open; more bytes than this means it grew during the copy. */
  #expectedSize: number | undefined;

  constructor(options: MeterOptions, details: InputErrorDetails) {
    this.#options = options;
    this.#details = details;
    this.#head = Buffer.alloc(signatureBytesNeeded(options.mediaType));
    this.#headChecked = this.#head.length === 0;
  }

  get details(): InputErrorDetails {
    return this.#details;
  }

  /** A file's size at open: refused at once when it already exceeds a limit or the declared size. */
  expect(size: number): void {
    this.#check(size);
    const declared = this.#options.declaredSize;
    if (declared !== undefined && size !== declared) throw this.#sizeMismatch();
    this.#expectedSize = size;
  }

  /** How many more bytes may be admitted before some bound is crossed. */
  remaining(): number {
    const { maxBytes, totalUsed, maxTotal, declaredSize } = this.#options;
    let bound = Math.min(maxBytes.value, maxTotal - totalUsed);
    if (declaredSize !== undefined) bound = Math.min(bound, declaredSize);
    if (this.#expectedSize !== undefined) bound = Math.min(bound, this.#expectedSize);
    return Math.max(0, bound - this.bytes);
  }

  /** Accounts for `n` more bytes, or throws when they cross a bound. */
  admit(n: number): void {
    const next = this.bytes + n;
    if (this.#expectedSize !== undefined && next > this.#expectedSize) {
      throw inputFailure("input_materialization_failed", "the source changed while it was copied", this.#details);
    }
    this.#check(next);
    if (this.#options.declaredSize !== undefined && next > this.#options.declaredSize) throw this.#sizeMismatch();
    this.bytes = next;
  }

  /** Hashes an admitted chunk and checks the leading bytes against the media type. */
  consume(chunk: Uint8Array): void {
    this.#hash.update(chunk);
    if (this.#headChecked) return;
    const take = Math.min(this.#head.length - this.#headLength, chunk.byteLength);
    this.#head.set(chunk.subarray(0, take), this.#headLength);
    this.#headLength += take;
    if (this.#headLength === this.#head.length) this.#checkHead();
  }

  /** After the last chunk: the size and digest, checked against the declared ones. */
  finish(): { size: number; sha256: string } {
    if (!this.#headChecked) this.#checkHead();
    if (this.#options.declaredSize !== undefined && this.bytes !== this.#options.declaredSize) throw this.#sizeMismatch();
    const sha256 = this.#hash.digest("hex");
    if (this.#options.declaredSha256 !== undefined && sha256 !== this.#options.declaredSha256) {
      throw inputFailure("input_digest_mismatch", "the content's SHA-256 differs from the declared digest", this.#details);
    }
    return { size: this.bytes, sha256 };
  }

  #check(bytes: number): void {
    const { maxBytes, totalUsed, maxTotal } = this.#options;
    if (bytes > maxBytes.value) {
      const whose = maxBytes.fromDriver ? "the driver's per-input limit" : "the per-input limit";
      throw inputFailure("input_too_large", `the input exceeds ${whose} of ${maxBytes.value} bytes`, { ...this.#details, limit: maxBytes.value });
    }
    if (totalUsed + bytes > maxTotal) {
      throw inputFailure("input_too_large", `the inputs exceed the run's total limit of ${maxTotal} bytes`, { ...this.#details, limit: maxTotal });
    }
  }

  #sizeMismatch() {
    return inputFailure("input_digest_mismatch", "the content's size differs from the declared size", this.#details);
  }

  #checkHead(): void {
    this.#headChecked = true;
    if (!contentMatchesMediaType(this.#options.mediaType, this.#head.subarray(0, this.#headLength))) {
      throw inputFailure("input_invalid", `the content does not match its media type ${this.#options.mediaType}`, this.#details);
    }
  }
}

/** Copies a regular file into `out`, double-buffered. */
export async function copyFromFile(source: FileSource, out: FileHandle, meter: Meter, signal: AbortSignal): Promise<void> {
  meter.expect(source.size);
  const bufferBytes = Math.min(FILE_CHUNK_BYTES, Math.max(MIN_BUFFER_BYTES, source.size + 1));
  const buffers = [Buffer.allocUnsafe(bufferBytes), Buffer.allocUnsafe(bufferBytes)] as const;
  const read = async (buffer: Buffer, position: number): Promise<number> => {
    // One byte past the remaining allowance reveals a crossing without reading further.
    const length = Math.min(buffer.length, meter.remaining() + 1);
    try {
      return (await source.handle.read(buffer, 0, length, position)).bytesRead;
    } catch (error) {
      throw inputFailure("input_materialization_failed", "the source could not be read", meter.details, error);
    }
  };

  let which = 0;
  let position = 0;
  let reading = read(buffers[0], 0);
  let writing: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      const bytesRead = await reading;
      if (bytesRead === 0) break;
      const chunk = buffers[which]!.subarray(0, bytesRead);
      meter.admit(bytesRead);
      await writing; // The other buffer is free once its write is done.
      if (signal.aborted) throw new Aborted();
      which ^= 1;
      reading = read(buffers[which]!, position + bytesRead);
      writing = writeAll(out, chunk, position, meter.details);
      position += bytesRead;
      meter.consume(chunk);
    }
    await writing;
  } finally {
    await Promise.allSettled([reading, writing]);
  }
}

/** Copies an opener's stream into `out`. */
export async function copyFromStream(source: StreamSource, out: FileHandle, meter: Meter, signal: AbortSignal): Promise<void> {
  let position = 0;
  for (;;) {
    if (signal.aborted) throw new Aborted();
    const chunk = await source.next();
    if (chunk === undefined) break;
    if (chunk.byteLength === 0) continue;
    meter.admit(chunk.byteLength);
    const writing = writeAll(out, chunk, position, meter.details);
    try {
      meter.consume(chunk);
    } catch (error) {
      await writing.catch(() => undefined);
      throw error;
    }
    position += chunk.byteLength;
    // The producer may reuse its buffer once asked for the next chunk.
    await writing;
  }
}

async function writeAll(out: FileHandle, chunk: Uint8Array, position: number, details: InputErrorDetails): Promise<void> {
  try {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const { bytesWritten } = await out.write(chunk, offset, chunk.byteLength - offset, position + offset);
      offset += bytesWritten;
    }
  } catch (error) {
    throw inputFailure("input_materialization_failed", "the input could not be written to the run's directory", details, error);
  }
}
