/** Per-run inputs (DESIGN §9): references, limits, media types, errors and the materializer. */
export { InputError, INPUT_ERROR_CODES } from "./errors.js";
export type { InputDiagnostic, InputDiagnosticHandler, InputErrorCode, InputErrorDetails } from "./errors.js";
export { DEFAULT_INPUT_LIMITS, resolveInputLimits } from "./limits.js";
export type { ResolvedInputLimits } from "./limits.js";
export { inferMediaType, mediaTypeMatches, MEDIA_TYPES_BY_EXTENSION, normalizeMediaType } from "./media-type.js";
export { materializeInputs } from "./materialize.js";
export type { MaterializeContext, MaterializedInputs } from "./materialize.js";
export { MAX_NAME_BYTES, sanitizeName } from "./names.js";
export { input, InputRef } from "./refs.js";
export type { InputOpener, InputOpenerOptions, InputRefOptions, InputSourceStream } from "./refs.js";
export { liveInputDirectoryCount } from "./registry.js";
export { STALE_MIN_AGE_MS, sweepStaleInputDirectories } from "./stale.js";
