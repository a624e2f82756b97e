/**
 * Input errors (DESIGN §9). An {@link InputError} names what went wrong with which input — its
 * position, kind, media type, the driver and the limit involved — and nothing else: its message
 * and its (absent) `cause` never hold the source path, the file's content or an opener's error
 * text, because those may carry secrets. The detailed cause goes only to the host's optional
 * diagnostic hook ({@link InputDiagnostic}).
 */
import { AdaptorError } from "../errors/index.js";
import type { InputKind } from "./kinds.js";

/** Stable codes of {@link InputError}. */
export type InputErrorCode =
  /** A bad argument or option, or content that contradicts its declared media type. */
  | "input_invalid"
  /** The driver does not accept this kind of input at all. */
  | "input_kind_unsupported"
  /** The driver does not accept this media type for this kind. */
  | "input_media_type_unsupported"
  /** The required delivery mode (or any mode) is not available for this kind. */
  | "input_mode_unsupported"
  /** A count or byte limit was exceeded; `limit` holds the limit. */
  | "input_too_large"
  /** The content's size or SHA-256 differs from what was declared. */
  | "input_digest_mismatch"
  /** The source could not be opened or read, or changed while it was copied. */
  | "input_materialization_failed";

export const INPUT_ERROR_CODES: readonly InputErrorCode[] = Object.freeze([
  "input_invalid",
  "input_kind_unsupported",
  "input_media_type_unsupported",
  "input_mode_unsupported",
  "input_too_large",
  "input_digest_mismatch",
  "input_materialization_failed",
]);

/** The structured fields of an {@link InputError}; all optional. */
export interface InputErrorDetails {
  /** Zero-based position of the input in the run's list; undefined when no list is involved. */
  index?: number;
  kind?: InputKind;
  mediaType?: string;
  /** Id of the driver whose capabilities or limits were involved. */
  driver?: string;
  /** The count or byte limit that was exceeded (`input_too_large`). */
  limit?: number;
}

/** What the optional diagnostic hook receives when an input fails for an underlying reason. */
export interface InputDiagnostic {
  index: number | undefined;
  code: InputErrorCode;
  /** The underlying error (a filesystem error, an opener's rejection, ...). May hold paths and secrets. */
  cause: unknown;
}

export type InputDiagnosticHandler = (detail: InputDiagnostic) => void;

/** A per-run input was refused or could not be materialized. Raised before the prompt can be delivered. */
export class InputError extends AdaptorError {
  declare readonly code: InputErrorCode;
  readonly index?: number;
  readonly kind?: InputKind;
  readonly mediaType?: string;
  readonly driver?: string;
  readonly limit?: number;

  constructor(code: InputErrorCode, message: string, details: InputErrorDetails = {}) {
    // Never a cause: the underlying error may hold a path or an opener's secret-bearing text.
    super(code, details.index === undefined ? message : `input ${details.index}: ${message}`);
    if (details.index !== undefined) this.index = details.index;
    if (details.kind !== undefined) this.kind = details.kind;
    if (details.mediaType !== undefined) this.mediaType = details.mediaType;
    if (details.driver !== undefined) this.driver = details.driver;
    if (details.limit !== undefined) this.limit = details.limit;
  }

  /** Whether `value` is an InputError (also across duplicated package copies). */
  static isInputError(value: unknown): value is InputError {
    return AdaptorError.is(value) && (INPUT_ERROR_CODES as readonly string[]).includes(value.code);
  }
}

/** Calls the host's hook without letting it disturb the failure being reported. */
export function reportDiagnostic(
  handler: InputDiagnosticHandler | undefined,
  index: number | undefined,
  code: InputErrorCode,
  cause: unknown,
): void {
  if (handler === undefined || cause === undefined) return;
  try {
    handler({ index, code, cause });
  } catch {
    // A throwing hook must not replace the input error.
  }
}

// ---------------------------------------------------------------------------------------------
// Internal: the detailed cause of an error travels beside it, never inside it.

const causes = new WeakMap<InputError, unknown>();

/** An InputError whose detailed cause is kept for the diagnostic hook only (internal). */
export function inputFailure(code: InputErrorCode, message: string, details: InputErrorDetails, cause?: unknown): InputError {
  const error = new InputError(code, message, details);
  if (cause !== undefined) causes.set(error, cause);
  return error;
}

/** The detailed cause recorded by {@link inputFailure} (internal). */
export function diagnosticCause(error: InputError): unknown {
  return causes.get(error);
}
