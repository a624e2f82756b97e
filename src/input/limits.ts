/**
 * Input limits: the host's `inputLimits` with safe defaults, intersected with a driver's static
 * per-kind `maxCount` / `maxBytes`. Zero or undefined selects the default; there is no
 * "unlimited". A driver's undefined limit means "unknown" and leaves the host's limit in force.
 */
import type { InputKindCapability } from "../driver/types.js";
import type { InputLimits } from "../driver/vocabulary.js";
import { InputError } from "./errors.js";

const MiB = 1024 * 1024;

/** The defaults: 16 inputs per run, 64 MiB per input, 256 MiB per run. */
export const DEFAULT_INPUT_LIMITS: Readonly<Required<InputLimits>> = Object.freeze({
  maxCount: 16,
  maxInputBytes: 64 * MiB,
  maxTotalBytes: 256 * MiB,
});

/** Limits with every field set. */
export type ResolvedInputLimits = Readonly<Required<InputLimits>>;

/**
 * Fills in defaults and checks the host's limits. Throws `InputError` `input_invalid` (without an
 * index) for a negative, fractional, non-finite or non-number value or an unknown key.
 */
export function resolveInputLimits(limits?: InputLimits): ResolvedInputLimits {
  if (limits === undefined || limits === null) return DEFAULT_INPUT_LIMITS;
  if (typeof limits !== "object" || Array.isArray(limits)) throw new InputError("input_invalid", "inputLimits must be an object");
  for (const key of Object.keys(limits)) {
    if (!(key in DEFAULT_INPUT_LIMITS)) throw new InputError("input_invalid", `inputLimits has an unknown key "${safeKey(key)}"`);
  }
  const pick = (key: keyof InputLimits): number => {
    const value: unknown = limits[key];
    if (value === undefined || value === 0) return DEFAULT_INPUT_LIMITS[key];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw new InputError("input_invalid", `inputLimits.${key} must be a non-negative integer (0 selects the default)`);
    }
    return value;
  };
  return Object.freeze({ maxCount: pick("maxCount"), maxInputBytes: pick("maxInputBytes"), maxTotalBytes: pick("maxTotalBytes") });
}

/** A limit together with whether it came from the driver. */
export interface EffectiveLimit {
  value: number;
  fromDriver: boolean;
}

/** The per-input byte limit for one kind: the smaller of the host's and the driver's. */
export function effectiveMaxBytes(limits: ResolvedInputLimits, capability: InputKindCapability): EffectiveLimit {
  const driver = capability.maxBytes;
  return isDriverLimit(driver) && driver < limits.maxInputBytes
    ? { value: driver, fromDriver: true }
    : { value: limits.maxInputBytes, fromDriver: false };
}

/** The driver's count limit for one kind, or undefined when it declares none (the host's total count still applies). */
export function driverMaxCount(capability: InputKindCapability): number | undefined {
  return isDriverLimit(capability.maxCount) ? capability.maxCount : undefined;
}

/** A driver's declared limit is usable when it is a non-negative integer; anything else counts as unknown. */
function isDriverLimit(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Keys come from host code, but keep them short and printable in a message. */
function safeKey(key: string): string {
  return key.replace(/[^\w.-]/g, "?").slice(0, 40);
}
