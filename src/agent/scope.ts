/**
 * Run-time enforcement of option scopes (DESIGN §3) and option values, so a JavaScript caller
 * or a cast cannot smuggle a construction-only option into a call, nor a misspelt value into a
 * run: every key is known, in its scope, supported, and every value has its declared shape.
 */
import { ConfigError } from "../errors/index.js";
import { InputError } from "../input/errors.js";
import { InputRef } from "../input/refs.js";
import { AGENT_OPTION_KEYS, CALL_OPTION_KEYS, UNSUPPORTED_AGENT_KEYS, type AgentOptions, type CallOptions } from "./options.js";
import { agentOptionsSchema, callOptionsSchema } from "./validate.js";
import { parseOrThrow } from "../driver/validate-schema.js";

const CONSTRUCTION_KEYS = new Set<string>(Object.keys(AGENT_OPTION_KEYS));
const CALL_KEYS = new Set<string>(Object.keys(CALL_OPTION_KEYS));
const DEFAULTABLE_KEYS = new Set<string>(Object.entries(CALL_OPTION_KEYS).filter(([, scope]) => scope === "defaultable").map(([key]) => key));
const UNSUPPORTED_KEYS = new Set(UNSUPPORTED_AGENT_KEYS);
const REMOVED_KEYS = new Set(["timeout", "profileState", "syncProfile", "selectSkills"]);

function rejectRemovedOrUnsupported(key: string, where: string): void {
  if (REMOVED_KEYS.has(key)) {
    const hint = key === "timeout" ? "; pass signal: AbortSignal.timeout(ms) instead" : "";
    throw new ConfigError(`"${key}" is not an option of ${where}${hint}`, "config_invalid");
  }
  if (UNSUPPORTED_KEYS.has(key)) throw new ConfigError(`"${key}" is not supported yet`, "config_invalid");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks the keys and values of one call's options. Throws `ConfigError` (or `InputError` for inputs). */
export function checkCallOptions(options: CallOptions | undefined): void {
  if (options === undefined) return;
  if (!isPlainObject(options)) throw new ConfigError("call options must be an object");
  for (const key of Object.keys(options)) {
    rejectRemovedOrUnsupported(key, "a call");
    if (CONSTRUCTION_KEYS.has(key)) {
      throw new ConfigError(`"${key}" is a construction-only option: pass it to createAgent, not to a call`, "option_scope");
    }
    if (!CALL_KEYS.has(key)) throw new ConfigError(`unknown call option "${key}"`);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new ConfigError("signal must be an AbortSignal");
  }
  if (options.inputs !== undefined) {
    if (!Array.isArray(options.inputs)) throw new InputError("input_invalid", "inputs must be an array of input references");
    options.inputs.forEach((ref, index) => {
      if (!(ref instanceof InputRef)) {
        throw new InputError("input_invalid", "inputs must be created with input.fromPath, input.fromFS or input.fromOpener", { index });
      }
    });
  }
  parseOrThrow(callOptionsSchema, options);
}

export function checkAgentOptions(options: AgentOptions | undefined): void {
  if (options === undefined) return;
  if (!isPlainObject(options)) throw new ConfigError("agent options must be an object");
  for (const key of Object.keys(options)) {
    rejectRemovedOrUnsupported(key, "createAgent");
    if (CALL_KEYS.has(key)) {
      throw new ConfigError(`"${key}" is a call option: pass it per call or under "defaults"`, "option_scope");
    }
    if (!CONSTRUCTION_KEYS.has(key)) throw new ConfigError(`unknown agent option "${key}"`);
  }
  if (options.defaults !== undefined && !isPlainObject(options.defaults)) throw new ConfigError("defaults must be an object");
  for (const key of Object.keys(options.defaults ?? {})) {
    if (CALL_KEYS.has(key) && !DEFAULTABLE_KEYS.has(key)) throw new ConfigError(`"${key}" is call-only and has no default`, "option_scope");
    rejectRemovedOrUnsupported(key, "defaults");
    if (!DEFAULTABLE_KEYS.has(key)) throw new ConfigError(`unknown default "${key}"`, CONSTRUCTION_KEYS.has(key) ? "option_scope" : "config_invalid");
  }
  parseOrThrow(agentOptionsSchema, options);
}
