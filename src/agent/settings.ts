/**
 * The effective settings of a call (DESIGN §3, §7): the call's options over the agent's
 * `defaults`, over the driver config's model and effort (`Driver.defaults()`), copied so the
 * caller may reuse its objects, and the compatibility signature that keys the standby by
 * everything that affects process reuse.
 */
import type { Driver, ModelDefaults, ResolvedResources } from "../driver/types.js";
import { ConfigError } from "../errors/index.js";
import { signatureOf } from "../driver/signature.js";
import type { JsonSchema } from "../driver/vocabulary.js";
import type { EffectiveCallOptions } from "./execute.js";
import type { CallDefaults, CallOptions } from "./options.js";

export class CallSettings {
  readonly #driver: Driver;
  readonly #driverId: string;
  readonly #workspace: string;
  readonly #resources: ResolvedResources;
  readonly #defaults: Omit<CallDefaults, "onApproval" | "onUserInput">;
  readonly #handlers: Pick<CallDefaults, "onApproval" | "onUserInput">;
  /** The driver config's model and effort, below the agent's defaults and the call's options. */
  readonly #driverDefaults: ModelDefaults;

  constructor(driver: Driver, driverId: string, workspace: string, resources: ResolvedResources, defaults: CallDefaults | undefined) {
    this.#driver = driver;
    this.#driverId = driverId;
    this.#workspace = workspace;
    this.#resources = resources;
    // Copied now: the host may reuse its objects; handlers are functions and kept as given.
    this.#defaults = structuredClone({ ...defaults, onApproval: undefined, onUserInput: undefined });
    this.#handlers = { onApproval: defaults?.onApproval, onUserInput: defaults?.onUserInput };
    this.#driverDefaults = driverDefaults(driver);
  }

  /** The call's settings over the defaults, copied now: the caller may reuse its arrays and objects. */
  effective(call: CallOptions = {}): EffectiveCallOptions {
    const { signal: _signal, ...rest } = call;
    const defaults = this.#defaults;
    const merged: EffectiveCallOptions = { ...defaults, ...this.#handlers, ...rest, policy: { ...defaults.policy, ...rest.policy } };
    if (rest.inputs !== undefined) merged.inputs = [...rest.inputs];
    if (rest.metadata !== undefined) merged.metadata = { ...rest.metadata };
    if (rest.outputSchema !== undefined) merged.outputSchema = copyOutputSchema(rest.outputSchema);
    merged.model ??= this.#driverDefaults.model;
    merged.effort ??= this.#driverDefaults.effort;
    for (const key of Object.keys(merged) as (keyof EffectiveCallOptions)[]) {
      if (merged[key] === undefined) delete merged[key];
    }
    return merged;
  }

  /** The driver config's model and effort (strings only), as core folds them. */
  driverDefaults(): ModelDefaults {
    return { ...this.#driverDefaults };
  }

  /** Everything that affects whether a provider process can be reused. */
  signature(call: EffectiveCallOptions): string {
    return signatureOf({
      driver: this.#driverId,
      driverConfig: this.#driver.fingerprint?.() ?? null,
      workspace: this.#workspace,
      resources: this.#resources,
      model: call.model,
      effort: call.effort,
      policy: call.policy,
    });
  }
}

/** The driver's defaults, read once (its config is captured at construction); only strings count. */
function driverDefaults(driver: Driver): ModelDefaults {
  const given = driver.defaults?.();
  const found: ModelDefaults = {};
  if (typeof given?.model === "string" && given.model !== "") found.model = given.model;
  if (typeof given?.effort === "string" && given.effort !== "") found.effort = given.effort;
  return found;
}

function copyOutputSchema(schema: JsonSchema): JsonSchema {
  try {
    return structuredClone(schema);
  } catch {
    throw new ConfigError("outputSchema must be a JSON Schema object");
  }
}
