/**
 * Opening an input's source, exactly once, without following it anywhere it should not go.
 *
 * Files (path and fs sources) are opened with `O_NOFOLLOW` (a symlink as the final component is
 * refused) and `O_NONBLOCK` (a FIFO cannot hang the open; it is then refused as not a regular
 * file), and `fstat`ed on the open descriptor. After the copy, {@link FileSource.verify} compares
 * a second `fstat` (device, inode, size, mtime, ctime) and an `lstat` of the path with the first:
 * a file modified, truncated, extended, or renamed over during the copy is refused.
 *
 * For fs sources the opened descriptor's real location must lie inside the real root: on Linux
 * it is read from `/proc/self/fd/N` after the open, so an intermediate directory swapped for a
 * symlink cannot escape; elsewhere the path is resolved with `realpath` and its device and inode
 * must match the descriptor's.
 *
 * Where the platform has no `O_NOFOLLOW`, the path is `lstat`ed first and its device and inode
 * must match the opened descriptor's.
 */
import { constants } from "node:fs";
import type { BigIntStats } from "node:fs";
import { lstat, open, readlink, realpath, stat, type FileHandle } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { InputError, inputFailure, type InputErrorDetails } from "./errors.js";
import type { InputOpener, InputRefSpec } from "./refs.js";
import { materializeTestHooks } from "./test-hooks.js";

const NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
const NONBLOCK: number = constants.O_NONBLOCK ?? 0;

/** Thrown internally when the materialization's signal aborts; the caller rethrows the signal's reason. */
export class Aborted extends Error {
  constructor() {
    super("aborted");
  }
}

/** A regular file, open for reading. */
export interface FileSource {
  readonly type: "file";
  readonly handle: FileHandle;
  /** Size at open. */
  readonly size: number;
  /** Fails unless the file is unchanged since it was opened and `bytesCopied` equals its size. */
  verify(bytesCopied: number): Promise<void>;
  close(): Promise<void>;
}

/** A byte stream returned by an opener. */
export interface StreamSource {
  readonly type: "stream";
  /** The next chunk, or undefined at the end. Rejects with {@link Aborted} when the signal aborts. */
  next(): Promise<Uint8Array | undefined>;
  /** Cancels or destroys the stream. Idempotent; never rejects. */
  close(): Promise<void>;
}

export type OpenedSource = FileSource | StreamSource;

/** Opens a reference's source once. Failures are `InputError`s; an abort is {@link Aborted}. */
export async function openSource(spec: InputRefSpec, details: InputErrorDetails, signal: AbortSignal): Promise<OpenedSource> {
  const source = spec.source;
  switch (source.type) {
    case "path":
      return openFile(source.path, undefined, details);
    case "fs": {
      let root: string;
      try {
        root = await realpath(source.root);
      } catch (error) {
        throw inputFailure("input_materialization_failed", "the source's root directory cannot be resolved", details, error);
      }
      return openFile(join(root, source.relativePath), root, details);
    }
    case "opener":
      return openStream(source.open, signal, details);
  }
}

// ---------------------------------------------------------------------------------------------
// Files

async function openFile(path: string, root: string | undefined, details: InputErrorDetails): Promise<FileSource> {
  let expected: BigIntStats | undefined;
  if (NOFOLLOW === 0) {
    try {
      expected = await lstat(path, { bigint: true });
    } catch (error) {
      throw openFailure(error, details);
    }
    if (expected.isSymbolicLink()) throw inputFailure("input_materialization_failed", "the source is a symbolic link", details);
  }

  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    throw openFailure(error, details);
  }
  try {
    if (materializeTestHooks.beforeStat) await materializeTestHooks.beforeStat(details.index);
    const before = await handle.stat({ bigint: true });
    if (!before.isFile()) throw inputFailure("input_materialization_failed", "the source is not a regular file", details);
    if (expected !== undefined && !sameFile(expected, before)) {
      throw inputFailure("input_materialization_failed", "the source was replaced while it was opened", details);
    }
    if (root !== undefined) await checkInsideRoot(handle, path, root, before, details);
    return {
      type: "file",
      handle,
      size: Number(before.size),
      verify: (bytesCopied) => verifyUnchanged(handle, path, before, bytesCopied, details),
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

function openFailure(error: unknown, details: InputErrorDetails): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === "ELOOP" || code === "EMLINK" || code === "EFTYPE"
      ? "the source is a symbolic link"
      : code === "ENOENT" || code === "ENOTDIR"
        ? "the source does not exist"
        : code === "EACCES" || code === "EPERM"
          ? "the source cannot be read (permission denied)"
          : code === "EISDIR"
            ? "the source is not a regular file"
            : "the source cannot be opened";
  return inputFailure("input_materialization_failed", reason, details, error);
}

async function checkInsideRoot(handle: FileHandle, path: string, root: string, opened: BigIntStats, details: InputErrorDetails): Promise<void> {
  let real: string | undefined;
  if (process.platform === "linux") {
    try {
      real = await readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      real = undefined; // No /proc: fall back below.
    }
  }
  if (real === undefined) {
    try {
      real = await realpath(path);
      if (!sameFile(await stat(real, { bigint: true }), opened)) {
        throw inputFailure("input_materialization_failed", "the source was replaced while it was opened", details);
      }
    } catch (error) {
      if (InputError.isInputError(error)) throw error;
      throw inputFailure("input_materialization_failed", "the source cannot be resolved", details, error);
    }
  }
  if (!isInside(root, real)) throw inputFailure("input_materialization_failed", "the source resolves outside its root", details);
}

/** Whether `path` lies strictly inside `root` (both absolute, resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

async function verifyUnchanged(
  handle: FileHandle,
  path: string,
  before: BigIntStats,
  bytesCopied: number,
  details: InputErrorDetails,
): Promise<void> {
  const changed = (cause?: unknown) => inputFailure("input_materialization_failed", "the source changed while it was copied", details, cause);
  let after: BigIntStats;
  try {
    after = await handle.stat({ bigint: true });
  } catch (error) {
    throw changed(error);
  }
  if (
    !sameFile(before, after) ||
    after.size !== before.size ||
    after.mtimeNs !== before.mtimeNs ||
    after.ctimeNs !== before.ctimeNs ||
    BigInt(bytesCopied) !== before.size
  ) {
    throw changed(new Error(`size ${before.size} → ${after.size}, copied ${bytesCopied}; mtime or ctime ${after.mtimeNs !== before.mtimeNs || after.ctimeNs !== before.ctimeNs ? "changed" : "unchanged"}`));
  }
  let now: BigIntStats;
  try {
    now = await lstat(path, { bigint: true });
  } catch (error) {
    throw inputFailure("input_materialization_failed", "the source was removed or replaced while it was copied", details, error);
  }
  if (now.isSymbolicLink() || !sameFile(now, before)) {
    throw inputFailure("input_materialization_failed", "the source was replaced while it was copied", details);
  }
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

// ---------------------------------------------------------------------------------------------
// Opener streams

async function openStream(openFn: InputOpener, signal: AbortSignal, details: InputErrorDetails): Promise<StreamSource> {
  const failed = (cause: unknown) => inputFailure("input_materialization_failed", "the input's opener failed", details, cause);
  let result: unknown;
  try {
    result = openFn(signal);
  } catch (error) {
    if (signal.aborted) throw new Aborted();
    throw failed(error);
  }
  let stream: unknown = result;
  if (isPromiseLike(result)) {
    try {
      stream = await abortable(Promise.resolve(result), signal, (late) => void closeLate(late));
    } catch (error) {
      if (error instanceof Aborted || signal.aborted) throw new Aborted();
      throw failed(error);
    }
  }
  const wrapped = wrapStream(stream, signal, details);
  if (wrapped === undefined) {
    void closeLate(stream);
    throw inputFailure("input_materialization_failed", "the input's opener did not return a byte stream", details);
  }
  return wrapped;
}

interface WebReader {
  read(): Promise<{ done: boolean; value?: unknown }>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

function wrapStream(stream: unknown, signal: AbortSignal, details: InputErrorDetails): StreamSource | undefined {
  if (typeof stream !== "object" || stream === null) return undefined;
  const readFailed = (cause: unknown) => inputFailure("input_materialization_failed", "the input's stream failed", details, cause);
  const notBytes = () => inputFailure("input_materialization_failed", "the input's stream yielded something other than bytes", details);
  const candidate = stream as {
    getReader?: () => WebReader;
    destroy?: (error?: Error) => void;
    [Symbol.asyncIterator]?: () => AsyncIterator<unknown>;
  };
  /** A source whose stream could not even be opened: its first read fails. */
  const unopened = (error: unknown, close: () => Promise<void>): StreamSource => ({ type: "stream", next: () => Promise.reject(readFailed(error)), close });

  if (typeof candidate.getReader === "function") {
    let reader: WebReader;
    try {
      reader = candidate.getReader();
    } catch (error) {
      return unopened(error, async () => undefined);
    }
    return pullSource(() => reader.read(), async () => {
      await reader.cancel().catch(() => undefined);
      try {
        reader.releaseLock();
      } catch {
        // Already released.
      }
    }, signal, { readFailed, notBytes });
  }

  const iterate = candidate[Symbol.asyncIterator];
  if (typeof iterate === "function") {
    let iterator: AsyncIterator<unknown>;
    try {
      iterator = iterate.call(candidate);
    } catch (error) {
      return unopened(error, () => destroyNode(candidate, undefined));
    }
    return pullSource(() => iterator.next(), () => destroyNode(candidate, iterator), signal, { readFailed, notBytes });
  }
  return undefined;
}

/**
 * One byte-stream source over either kind of stream: `pull` is a web reader's `read()` or an async
 * iterator's `next()`, `release` cancels or destroys it (once). Reads are abortable, and a chunk
 * that is not bytes fails the input.
 */
function pullSource(
  pull: () => Promise<{ done?: boolean; value?: unknown }>,
  release: () => Promise<void>,
  signal: AbortSignal,
  failures: { readFailed(cause: unknown): Error; notBytes(): Error },
): StreamSource {
  let closed = false;
  return {
    type: "stream",
    async next() {
      let step: { done?: boolean; value?: unknown };
      try {
        step = await abortable(pull(), signal);
      } catch (error) {
        if (error instanceof Aborted || signal.aborted) throw new Aborted();
        throw failures.readFailed(error);
      }
      if (step.done) return undefined;
      if (!(step.value instanceof Uint8Array)) throw failures.notBytes();
      return step.value;
    },
    async close() {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}

async function destroyNode(
  stream: { destroy?: (error?: Error) => void },
  iterator: AsyncIterator<unknown> | undefined,
): Promise<void> {
  try {
    if (typeof stream.destroy === "function") stream.destroy();
    else await iterator?.return?.();
  } catch {
    // Closing is best effort; the stream is abandoned either way.
  }
}

/** Closes a stream the opener produced after the materialization stopped waiting for it. */
async function closeLate(stream: unknown): Promise<void> {
  if (typeof stream !== "object" || stream === null) return;
  const candidate = stream as { cancel?: () => Promise<void>; destroy?: () => void; locked?: boolean };
  try {
    if (typeof candidate.destroy === "function") candidate.destroy();
    else if (typeof candidate.cancel === "function" && candidate.locked !== true) await candidate.cancel();
  } catch {
    // Best effort.
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/**
 * `promise`, or a rejection with {@link Aborted} as soon as `signal` aborts. A value that arrives
 * after the abort is handed to `onLate`; a late rejection is swallowed.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal, onLate?: (value: T) => void): Promise<T> {
  if (signal.aborted) {
    promise.then((value) => onLate?.(value), () => undefined);
    return Promise.reject(new Aborted());
  }
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      settled = true;
      reject(new Aborted());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (settled) onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (!settled) reject(error);
      },
    );
  });
}
