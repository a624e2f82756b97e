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
import { resolveOutput, type ResolvedOutput } from "./structured/resolve.js";
import type { OutputOption } from "./structured/types.js";

export class CallSettings {
  readonly #driver: Driver;
  readonly #driverId: string;
  readonly #workspace: string;
  readonly #resources: ResolvedResources;
  readonly #defaults: Omit<CallDefaults, "onApproval" | "onUserInput" | "output" | "outputSchema">;
  /** The default `output`, resolved once (a schema object is not cloneable data). */
  readonly #output: ResolvedOutput | undefined;
  readonly #handlers: Pick<CallDefaults, "onApproval" | "onUserInput">;
  /** The driver config's model and effort, below the agent's defaults and the call's options. */
  readonly #driverDefaults: ModelDefaults;

  constructor(driver: Driver, driverId: string, workspace: string, resources: ResolvedResources, defaults: CallDefaults | undefined) {
    this.#driver = driver;
    this.#driverId = driverId;
    this.#workspace = workspace;
    this.#resources = resources;
    // Copied now: the host may reuse its objects; handlers are functions and kept as given.
    const { output, outputSchema, ...plain } = defaults ?? {};
    this.#defaults = structuredClone({ ...plain, onApproval: undefined, onUserInput: undefined });
    this.#output = outputOf(output, outputSchema);
    this.#handlers = { onApproval: defaults?.onApproval, onUserInput: defaults?.onUserInput };
    this.#driverDefaults = driverDefaults(driver);
  }

  /** The call's settings over the defaults, copied now: the caller may reuse its arrays and objects. */
  effective(call: CallOptions = {}): EffectiveCallOptions {
    // Services are resolved by the agent (their schemas and handlers are not data to copy).
    const { signal: _signal, output, outputSchema, services: _services, ...rest } = call;
    const defaults = this.#defaults;
    const merged: EffectiveCallOptions = { ...defaults, ...this.#handlers, ...rest, policy: { ...defaults.policy, ...rest.policy } };
    if (rest.inputs !== undefined) merged.inputs = [...rest.inputs];
    if (rest.metadata !== undefined) merged.metadata = { ...rest.metadata };
    if (rest.traceContext !== undefined) merged.traceContext = { ...rest.traceContext };
    if (defaults.watchdogs !== undefined || rest.watchdogs !== undefined) merged.watchdogs = { ...defaults.watchdogs, ...rest.watchdogs };
    // The call's output (or its deprecated outputSchema) replaces the default's.
    const resolved = output !== undefined || outputSchema !== undefined ? outputOf(output, outputSchema) : this.#output;
    if (resolved !== undefined) merged.output = resolved;
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

/** One scope's `output`, or its deprecated `outputSchema` (a JSON Schema in mode "native"), resolved. */
function outputOf(output: OutputOption | undefined, outputSchema: JsonSchema | undefined): ResolvedOutput | undefined {
  if (output !== undefined && outputSchema !== undefined) {
    throw new ConfigError("pass output or the deprecated outputSchema, not both", "config_invalid");
  }
  const option = output ?? outputSchema;
  return option === undefined ? undefined : resolveOutput(option);
}
