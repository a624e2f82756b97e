/**
 * Input references: what a host passes as a run's `inputs`. A reference only names a source —
 * nothing is opened or read until the run materializes it — and is immutable and detached: its
 * options are validated and copied when it is made (a relative path is resolved against the
 * current directory then), so changing the caller's objects later changes nothing.
 *
 * There is no URL source: a string that looks like a URL is a file path like any other, and is
 * never fetched.
 */
import { inspect } from "node:util";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { DELIVERY_MODES, INPUT_KINDS, type DeliveryMode, type InputKind } from "./kinds.js";
import { InputError } from "./errors.js";
import { inferMediaType, mediaTypeFitsKind, normalizeMediaType } from "./media-type.js";
import { sanitizeName } from "./names.js";

/** What an opener may return: a web `ReadableStream` of bytes or a Node readable stream. */
export type InputSourceStream = WebReadableStream<Uint8Array> | NodeJS.ReadableStream | Readable;

/**
 * Opens an input's content. Called at most once per materialization, with a signal that aborts
 * when the run is cancelled or the materialization fails; the stream must yield bytes.
 */
export type InputOpener = (signal: AbortSignal) => InputSourceStream | Promise<InputSourceStream>;

/** Options of every input reference. */
export interface InputRefOptions {
  /** The name shown to the driver (sanitized). Default: the source's basename. */
  name?: string;
  /** `type/subtype`. Default: inferred from the name's extension; required when it cannot be. */
  mediaType?: string;
  /** Expected size in bytes; a different size fails with `input_digest_mismatch`. */
  size?: number;
  /** Expected SHA-256, 64 hex digits or 32 bytes; a different digest fails with `input_digest_mismatch`. */
  sha256?: string | Uint8Array;
  /** Accept only this delivery mode. Default: native when the driver declares it, else a workspace reference. */
  requireMode?: DeliveryMode;
}

/** Options of {@link input.fromOpener}; the name is its second argument. */
export type InputOpenerOptions = Omit<InputRefOptions, "name">;

/** Where a reference's content comes from (internal). */
export type InputSource =
  | { readonly type: "path"; readonly path: string }
  | { readonly type: "fs"; readonly root: string; readonly relativePath: string }
  | { readonly type: "opener"; readonly open: InputOpener };

/** Everything a reference holds (internal; never on the public type). */
export interface InputRefSpec {
  readonly kind: InputKind;
  readonly source: InputSource;
  /** Sanitized. */
  readonly name: string;
  /** Normalized. */
  readonly mediaType: string;
  readonly size?: number;
  /** Lower-case hex. */
  readonly sha256?: string;
  readonly requireMode?: DeliveryMode;
}

const TOKEN = Symbol("InputRef");
let readSpec: (ref: InputRef) => InputRefSpec | undefined;
let makeRef: (spec: InputRefSpec) => InputRef;

/**
 * An opaque, immutable reference to one per-run input. Only its kind is visible; make one with
 * {@link input}.
 */
export class InputRef {
  readonly kind: InputKind;
  readonly #spec: InputRefSpec;

  /** @internal */
  private constructor(token: symbol, spec: InputRefSpec) {
    if (token !== TOKEN) throw new InputError("input_invalid", "make input references with input.fromPath, input.fromFS or input.fromOpener");
    this.kind = spec.kind;
    this.#spec = spec;
    Object.freeze(this);
  }

  static {
    readSpec = (ref) => (#spec in ref ? ref.#spec : undefined);
    makeRef = (spec) => new InputRef(TOKEN, Object.freeze(spec));
  }

  toJSON(): { kind: InputKind } {
    return { kind: this.kind };
  }

  [inspect.custom](): string {
    return `InputRef { kind: ${JSON.stringify(this.kind)} }`;
  }
}

/** The spec of a genuine reference, or undefined for anything else (internal). */
export function inputRefSpec(value: unknown): InputRefSpec | undefined {
  return typeof value === "object" && value !== null ? readSpec(value as InputRef) : undefined;
}

function fromPath(kind: InputKind, path: string, options?: InputRefOptions): InputRef {
  const checkedKind = checkKind(kind);
  const absolute = resolve(checkPath(path, "path"));
  const opts = readOptions(options, true);
  return makeRef(spec(checkedKind, { type: "path", path: absolute }, opts, opts.name ?? basename(absolute)));
}

function fromFS(kind: InputKind, root: string, path: string, options?: InputRefOptions): InputRef {
  const checkedKind = checkKind(kind);
  const absoluteRoot = resolve(checkPath(root, "root"));
  const target = resolve(absoluteRoot, checkPath(path, "path"));
  const relativePath = relative(absoluteRoot, target);
  if (relativePath === "" || relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath)) {
    throw new InputError("input_invalid", "the path must name a file inside the root");
  }
  const opts = readOptions(options, true);
  return makeRef(spec(checkedKind, { type: "fs", root: absoluteRoot, relativePath }, opts, opts.name ?? basename(target)));
}

function fromOpener(kind: InputKind, name: string, open: InputOpener, options?: InputOpenerOptions): InputRef {
  const checkedKind = checkKind(kind);
  if (typeof name !== "string" || name.length === 0) throw new InputError("input_invalid", "an opener input needs a non-empty name", { kind: checkedKind });
  if (typeof open !== "function") throw new InputError("input_invalid", "open must be a function", { kind: checkedKind });
  const opts = readOptions(options, false);
  return makeRef(spec(checkedKind, { type: "opener", open }, opts, name));
}

/**
 * Makes per-run input references (DESIGN §9). Pass them as a run's `inputs`.
 *
 * - `fromPath(kind, path, opts?)`: a regular file; the final component must not be a symlink.
 * - `fromFS(kind, root, path, opts?)`: a file that must stay inside the directory `root`, also
 *   after following symlinks.
 * - `fromOpener(kind, name, open, opts?)`: bytes from `open(signal)`, called at most once per run.
 */
export const input = Object.freeze({ fromPath, fromFS, fromOpener });

// ---------------------------------------------------------------------------------------------

interface ReadOptions {
  name?: string;
  mediaType?: string;
  size?: number;
  sha256?: string;
  requireMode?: DeliveryMode;
}

const OPTION_KEYS = new Set(["name", "mediaType", "size", "sha256", "requireMode"]);

function spec(kind: InputKind, source: InputSource, opts: ReadOptions, rawName: string): InputRefSpec {
  const name = sanitizeName(rawName);
  const mediaType = opts.mediaType ?? inferMediaType(name) ?? inferMediaType(rawName);
  if (mediaType === undefined) {
    throw new InputError("input_invalid", "the media type cannot be inferred from the name; pass mediaType", { kind });
  }
  if (!mediaTypeFitsKind(kind, mediaType)) {
    throw new InputError("input_invalid", `media type ${mediaType} does not fit kind ${kind}`, { kind, mediaType });
  }
  return {
    kind,
    source: Object.freeze(source),
    name,
    mediaType,
    ...(opts.size !== undefined ? { size: opts.size } : {}),
    ...(opts.sha256 !== undefined ? { sha256: opts.sha256 } : {}),
    ...(opts.requireMode !== undefined ? { requireMode: opts.requireMode } : {}),
  };
}

function checkKind(kind: unknown): InputKind {
  if (typeof kind !== "string" || !(INPUT_KINDS as readonly string[]).includes(kind)) {
    throw new InputError("input_invalid", `kind must be one of ${INPUT_KINDS.join(", ")}`);
  }
  return kind as InputKind;
}

function checkPath(value: unknown, what: string): string {
  if (typeof value !== "string" || value.length === 0 || value.includes("\0")) {
    throw new InputError("input_invalid", `${what} must be a non-empty string without NUL characters`);
  }
  return value;
}

/** Reads each option once and copies it, so later changes to the caller's object change nothing. */
function readOptions(options: unknown, allowName: boolean): ReadOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InputError("input_invalid", "options must be an object");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key) || (key === "name" && !allowName)) {
      throw new InputError("input_invalid", `unknown input option "${key.replace(/[^\w.-]/g, "?").slice(0, 40)}"`);
    }
  }
  const raw = options as Record<string, unknown>;
  const out: ReadOptions = {};

  const name = raw.name;
  if (name !== undefined) {
    if (typeof name !== "string" || name.length === 0) throw new InputError("input_invalid", "name must be a non-empty string");
    out.name = name;
  }

  const mediaType = raw.mediaType;
  if (mediaType !== undefined) {
    const normalized = typeof mediaType === "string" ? normalizeMediaType(mediaType) : undefined;
    if (normalized === undefined) throw new InputError("input_invalid", "mediaType must be type/subtype, without parameters");
    out.mediaType = normalized;
  }

  const size = raw.size;
  if (size !== undefined) {
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) throw new InputError("input_invalid", "size must be a non-negative integer");
    out.size = size;
  }

  const sha256 = raw.sha256;
  if (sha256 !== undefined) {
    if (typeof sha256 === "string") {
      if (!/^[0-9a-fA-F]{64}$/.test(sha256)) throw new InputError("input_invalid", "sha256 must be 64 hexadecimal digits or 32 bytes");
      out.sha256 = sha256.toLowerCase();
    } else if (sha256 instanceof Uint8Array) {
      if (sha256.byteLength !== 32) throw new InputError("input_invalid", "sha256 must be 64 hexadecimal digits or 32 bytes");
      out.sha256 = Buffer.from(sha256.buffer, sha256.byteOffset, sha256.byteLength).toString("hex");
    } else {
      throw new InputError("input_invalid", "sha256 must be 64 hexadecimal digits or 32 bytes");
    }
  }

  const requireMode = raw.requireMode;
  if (requireMode !== undefined) {
    if (typeof requireMode !== "string" || !(DELIVERY_MODES as readonly string[]).includes(requireMode)) {
      throw new InputError("input_invalid", `requireMode must be one of ${DELIVERY_MODES.join(", ")}`);
    }
    out.requireMode = requireMode as DeliveryMode;
  }
  return out;
}
