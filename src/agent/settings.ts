/**
 * The effective settings of a call (DESIGN §3, §7): the call's options over the agent's
 * `defaults`, over the driver config's model and effort (`Driver.defaults()`), copied so the
 * caller may reuse its objects, and the compatibility signature that keys the standby by
 * everything that affects process reuse.
 */
import type { Driver, ModelDefaults, ResolvedResources } from "../driver/types.js";
import { ConfigError } from "../errors/index.js";
import { canonicalJson } from "../driver/signature.js";
import { createHash } from "node:crypto";
import type { JsonSchema } from "../driver/vocabulary.js";
import type { EffectiveCallOptions } from "./execute.js";
import type { CallDefaults, CallOptions } from "./options.js";
import { resolveOutput, type ResolvedOutput } from "./structured/resolve.js";
import type { OutputOption } from "./structured/types.js";

/** Call options that `effective` does not copy over the defaults as they are. */
const NOT_MERGED: ReadonlySet<string> = new Set(["signal", "output", "outputSchema", "services"]);

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
  /** The effective settings of a call that sets nothing, merged once (see `copiedBase`). */
  #base: EffectiveCallOptions | undefined;
  /** The signature's canonical JSON around the call's part, for the driver config fingerprint it was made with. */
  #fixed: { fingerprint: unknown; head: string; tail: string } | undefined;

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
  effective(call?: CallOptions): EffectiveCallOptions {
    // Most calls set nothing the merge reads: the defaults' settings, merged once, are copied.
    if (call === undefined || !setsAnything(call)) {
      this.#base ??= this.#merge({});
      return copiedBase(this.#base);
    }
    return this.#merge(call);
  }

  #merge(call: CallOptions): EffectiveCallOptions {
    const defaults = this.#defaults;
    const merged: Record<string, unknown> = { ...defaults, ...this.#handlers };
    // The call's own keys over them, as a spread would, but for those resolved elsewhere: services
    // by the agent (their schemas and handlers are not data to copy), output just below.
    for (const key in call) if (!NOT_MERGED.has(key) && Object.hasOwn(call, key)) merged[key] = call[key as keyof CallOptions];
    const given = call as Omit<CallOptions, "signal" | "output" | "outputSchema" | "services">;
    merged.policy = { ...defaults.policy, ...given.policy };
    if (given.inputs !== undefined) merged.inputs = [...given.inputs];
    if (given.metadata !== undefined) merged.metadata = { ...given.metadata };
    if (given.traceContext !== undefined) merged.traceContext = { ...given.traceContext };
    if (defaults.watchdogs !== undefined || given.watchdogs !== undefined) merged.watchdogs = { ...defaults.watchdogs, ...given.watchdogs };
    // The call's output (or its deprecated outputSchema) replaces the default's.
    const resolved = call.output !== undefined || call.outputSchema !== undefined ? outputOf(call.output, call.outputSchema) : this.#output;
    if (resolved !== undefined) merged.output = resolved;
    merged.model ??= this.#driverDefaults.model;
    merged.effort ??= this.#driverDefaults.effort;
    // Keys holding undefined left out (copied into a new object: deleting keys is slow, and leaves a slow object).
    const effective: Record<string, unknown> = {};
    for (const key in merged) if (merged[key] !== undefined) effective[key] = merged[key];
    return effective as EffectiveCallOptions;
  }

  /** The driver config's model and effort (strings only), as core folds them. */
  driverDefaults(): ModelDefaults {
    return { ...this.#driverDefaults };
  }

  /**
   * Everything that affects whether a provider process can be reused: `signatureOf` of
   * `{ driver, driverConfig, workspace, resources, model, effort, policy }`. Its canonical JSON
   * is put together here from parts encoded once per agent (and per driver config fingerprint),
   * in the same sorted key order, so only the call's model, effort and policy are encoded per run.
   */
  signature(call: EffectiveCallOptions): string {
    const fingerprint = this.#driver.fingerprint?.() ?? null;
    let fixed = this.#fixed;
    if (fixed === undefined || fixed.fingerprint !== fingerprint) {
      fixed = this.#fixed = {
        fingerprint,
        head: `{"driver":${canonicalJson(this.#driverId)},"driverConfig":${canonicalJson(fingerprint)},`,
        tail: `,"resources":${canonicalJson(this.#resources)},"workspace":${canonicalJson(this.#workspace)}}`,
      };
    }
    const effort = call.effort === undefined ? "" : `"effort":${canonicalJson(call.effort)},`;
    const model = call.model === undefined ? "" : `"model":${canonicalJson(call.model)},`;
    return createHash("sha256").update(`${fixed.head}${effort}${model}"policy":${canonicalJson(call.policy)}${fixed.tail}`).digest("hex");
  }
}

/** Whether a call sets an option the merge reads (its signal and services are resolved elsewhere). */
function setsAnything(call: CallOptions): boolean {
  for (const key in call) {
    if (key !== "signal" && key !== "services" && Object.hasOwn(call, key)) return true;
  }
  return false;
}

/**
 * A fresh copy of the merged defaults, as `#merge({})` would make it: the objects the merge makes
 * per call (the policy, the watchdogs) are new, what it takes from the defaults as they are is shared.
 */
function copiedBase(base: EffectiveCallOptions): EffectiveCallOptions {
  const copy = { ...base, policy: { ...base.policy } };
  if (base.watchdogs !== undefined) copy.watchdogs = { ...base.watchdogs };
  return copy;
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
