/**
 * Validating a run's inputs against the driver's static capabilities and the limits, before any
 * source is opened: every reference is genuine, its kind is supported, its media type allowed, a
 * delivery mode is available, and the counts and declared sizes fit.
 *
 * Mode choice: `native` when the driver declares it; otherwise `workspace_reference` when
 * declared. `requireMode` narrows the choice to that one mode; when the driver does not declare
 * it the input fails with `input_mode_unsupported`.
 */
import type { Descriptor, InputKindCapability } from "../driver/types.js";
import type { DeliveryMode } from "./kinds.js";
import { InputError, type InputErrorDetails } from "./errors.js";
import { driverMaxCount, effectiveMaxBytes, type EffectiveLimit, type ResolvedInputLimits } from "./limits.js";
import { mediaTypeMatches } from "./media-type.js";
import { inputRefSpec, type InputRefSpec } from "./refs.js";

export interface PlannedInput {
  index: number;
  spec: InputRefSpec;
  mode: DeliveryMode;
  maxBytes: EffectiveLimit;
  details: InputErrorDetails;
}

export function planInputs(
  refs: unknown,
  driverId: string,
  capabilities: Descriptor["inputs"],
  limits: ResolvedInputLimits,
): PlannedInput[] {
  if (!Array.isArray(refs)) throw new InputError("input_invalid", "inputs must be an array of input references", { driver: driverId });
  if (refs.length > limits.maxCount) {
    throw new InputError("input_too_large", `${refs.length} inputs exceed the limit of ${limits.maxCount} per run`, {
      index: limits.maxCount,
      driver: driverId,
      limit: limits.maxCount,
    });
  }

  const planned: PlannedInput[] = [];
  const perKind = new Map<string, number>();
  let declaredTotal = 0;
  for (let index = 0; index < refs.length; index++) {
    const spec = inputRefSpec(refs[index]);
    if (spec === undefined) {
      throw new InputError("input_invalid", "not an input reference (use input.fromPath, input.fromFS or input.fromOpener)", {
        index,
        driver: driverId,
      });
    }
    const details: InputErrorDetails = { index, kind: spec.kind, mediaType: spec.mediaType, driver: driverId };
    const capability = capabilityOf(capabilities, spec.kind);
    if (capability === undefined) {
      throw new InputError("input_kind_unsupported", `driver ${driverId} does not accept ${spec.kind} inputs`, details);
    }
    if (capability.mediaTypes !== undefined && !capability.mediaTypes.some((pattern) => mediaTypeMatches(spec.mediaType, pattern))) {
      throw new InputError("input_media_type_unsupported", `driver ${driverId} does not accept ${spec.kind} inputs of type ${spec.mediaType}`, details);
    }
    const mode = chooseMode(capability.modes, spec.requireMode);
    if (mode === undefined) {
      throw new InputError(
        "input_mode_unsupported",
        `driver ${driverId} cannot deliver ${spec.kind} inputs ${
          spec.requireMode === "native" ? "natively" : spec.requireMode === "workspace_reference" ? "as workspace references" : "in any mode"
        }`,
        details,
      );
    }

    const count = (perKind.get(spec.kind) ?? 0) + 1;
    perKind.set(spec.kind, count);
    const maxCount = driverMaxCount(capability);
    if (maxCount !== undefined && count > maxCount) {
      throw new InputError("input_too_large", `driver ${driverId} accepts at most ${maxCount} ${spec.kind} inputs per run`, { ...details, limit: maxCount });
    }

    const maxBytes = effectiveMaxBytes(limits, capability);
    if (spec.size !== undefined) {
      if (spec.size > maxBytes.value) {
        const whose = maxBytes.fromDriver ? "the driver's per-input limit" : "the per-input limit";
        throw new InputError("input_too_large", `the declared size exceeds ${whose} of ${maxBytes.value} bytes`, { ...details, limit: maxBytes.value });
      }
      declaredTotal += spec.size;
      if (declaredTotal > limits.maxTotalBytes) {
        throw new InputError("input_too_large", `the declared sizes exceed the run's total limit of ${limits.maxTotalBytes} bytes`, {
          ...details,
          limit: limits.maxTotalBytes,
        });
      }
    }
    planned.push({ index, spec, mode, maxBytes, details });
  }
  return planned;
}

/** The driver's capability for a kind, or undefined when it declares no delivery mode for it. */
function capabilityOf(capabilities: Descriptor["inputs"], kind: string): InputKindCapability | undefined {
  if (typeof capabilities !== "object" || capabilities === null || !Object.hasOwn(capabilities, kind)) return undefined;
  const capability = (capabilities as Record<string, InputKindCapability | undefined>)[kind];
  return capability !== undefined && Array.isArray(capability.modes) && capability.modes.length > 0 ? capability : undefined;
}

function chooseMode(modes: readonly DeliveryMode[], required: DeliveryMode | undefined): DeliveryMode | undefined {
  if (required !== undefined) return modes.includes(required) ? required : undefined;
  if (modes.includes("native")) return "native";
  if (modes.includes("workspace_reference")) return "workspace_reference";
  return undefined;
}
