/**
 * Run-time enforcement of option scopes (DESIGN §3), so a JavaScript caller or a cast cannot
 * smuggle a construction-only option into a call.
 */
import { isAbsolute } from "node:path";
import { ConfigError } from "../errors/index.js";
import { InputError } from "../input/errors.js";
import { InputRef } from "../input/refs.js";
import { CALL_OPTION_KEYS, CONSTRUCTION_ONLY_KEYS, type AgentOptions, type CallOptions } from "./options.js";

const CONSTRUCTION_KEYS = new Set(CONSTRUCTION_ONLY_KEYS);
const CALL_KEYS = new Set(CALL_OPTION_KEYS);
const DEFAULTABLE_KEYS = new Set(CALL_OPTION_KEYS.filter((key) => key !== "signal" && key !== "inputs"));
const REMOVED_KEYS = new Set(["timeout", "profileState", "syncProfile", "selectSkills"]);

function rejectRemoved(key: string, where: string): void {
  if (REMOVED_KEYS.has(key)) {
    const hint = key === "timeout" ? "; pass signal: AbortSignal.timeout(ms) instead" : "";
    throw new ConfigError(`"${key}" is not an option of ${where}${hint}`, "config_invalid");
  }
}

export function checkCallOptions(options: CallOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null) throw new ConfigError("call options must be an object");
  for (const key of Object.keys(options)) {
    if (CONSTRUCTION_KEYS.has(key)) {
      throw new ConfigError(`"${key}" is a construction-only option: pass it to createAgent, not to a call`, "option_scope");
    }
    rejectRemoved(key, "a call");
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
}

export function checkAgentOptions(options: AgentOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null) throw new ConfigError("agent options must be an object");
  for (const key of Object.keys(options)) {
    rejectRemoved(key, "createAgent");
    if (CALL_KEYS.has(key)) {
      throw new ConfigError(`"${key}" is a call option: pass it per call or under "defaults"`, "option_scope");
    }
    if (!CONSTRUCTION_KEYS.has(key)) throw new ConfigError(`unknown agent option "${key}"`);
  }
  for (const key of Object.keys(options.defaults ?? {})) {
    if (key === "inputs") throw new ConfigError(`"inputs" is call-only and has no default`, "option_scope");
    rejectRemoved(key, "defaults");
    if (!DEFAULTABLE_KEYS.has(key)) throw new ConfigError(`unknown default "${key}"`, CONSTRUCTION_KEYS.has(key) ? "option_scope" : "config_invalid");
  }
  if (options.workspace !== undefined && (typeof options.workspace !== "string" || !isAbsolute(options.workspace))) {
    throw new ConfigError("workspace must be an absolute path");
  }
  const store = options.threadStore as unknown as Record<string, unknown> | undefined;
  if (store !== undefined && ["create", "get", "acquireLease", "saveCheckpoint", "close"].some((m) => typeof store?.[m] !== "function")) {
    throw new ConfigError("threadStore must implement ThreadStore");
  }
  const events = options.events;
  if (events?.bufferSize !== undefined && (!Number.isInteger(events.bufferSize) || events.bufferSize < 1)) {
    throw new ConfigError("events.bufferSize must be a positive integer");
  }
  if (events?.overflow !== undefined && events.overflow !== "block" && events.overflow !== "drop-deltas") {
    throw new ConfigError(`events.overflow must be "block" or "drop-deltas"`);
  }
}
