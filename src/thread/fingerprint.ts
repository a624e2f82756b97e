/**
 * The compatibility fingerprint of a thread (DESIGN §8): one readable value per stable dimension —
 * driver, workspace, instructions, tools, skills, MCP servers, the model and effort the driver's
 * config gives as defaults, and each setting the driver's `compatibility()` names (`driver.<name>`)
 * — and a digest over all of them. Per-turn content (prompts, inputs, metadata) is never part of
 * it, nor is anything that may change while the conversation stays the same: credentials,
 * endpoints, and paths that only locate the provider. The parts are readable (redacted, bounded)
 * so a mismatch names the setting and both values; records written before they were (every part a
 * digest) are still checked on the dimensions those digests can verify.
 */
import { canonicalJson, signatureOf } from "../driver/signature.js";
import { boundedValue, shortDigest } from "../driver/kit/compatibility.js";
import type { Driver, ModelDefaults, ResolvedResources } from "../driver/types.js";
import type { ThreadMismatch } from "../errors/index.js";

/** Prefix of a fingerprint whose parts are readable; a bare digest is an earlier version's. */
export const FINGERPRINT_VERSION = "v2:";

/** What an absent dimension reads as. */
export const NOT_SET = "(not set)";

/** What an earlier version's digest reads as: it cannot be shown. */
export const LEGACY_DIGEST = "(a digest recorded by an earlier version)";

/** Dimensions an earlier version's digests can still verify: they never held a secret or an endpoint. */
const LEGACY_VERIFIED = ["driver", "workspace", "instructions", "tools", "skills", "model", "effort"] as const;

export interface ThreadFingerprint {
  /** `v2:` and a digest of `parts`. */
  value: string;
  /** Readable, redacted, bounded value per dimension. */
  parts: Record<string, string>;
  /** What an earlier version recorded for the dimensions in `LEGACY_VERIFIED` (digests). */
  legacy: Record<string, string>;
  /** The driver id, to name a setting. */
  driverId: string;
  /** Redacts a recorded value before it is shown. */
  redact: (text: string) => string;
}

/** Redaction the agent applies to every value it records or shows. */
export interface FingerprintRedactor {
  redactText(text: string): string;
}

const listed = (names: string[], digestOf?: unknown): string =>
  names.length === 0 ? "(none)" : `${[...names].sort().join(", ")}${digestOf === undefined ? "" : ` (sha256 ${shortDigest(canonicalJson(digestOf))})`}`;

/** The readable core dimensions (before redaction and bounding). */
function coreParts(driverId: string, workspace: string, resources: ResolvedResources, defaults: ModelDefaults): Record<string, string> {
  const parts: Record<string, string> = {
    driver: driverId,
    workspace,
    instructions: resources.instructions === undefined ? NOT_SET : JSON.stringify(resources.instructions),
    // Descriptions and schemas are what the model saw: a digest of them tells a changed tool apart.
    tools: listed(resources.tools.map((t) => t.name), resources.tools),
    // A skill's directory and an MCP server's command, URL, env and headers only reach it.
    skills: listed(resources.skills.map((s) => s.name)),
    mcp: listed(resources.mcp.map((m) => m.name)),
  };
  if (defaults.model !== undefined) parts.model = defaults.model;
  if (defaults.effort !== undefined) parts.effort = defaults.effort;
  return parts;
}

/** The driver's settings as `driver.<name>` dimensions; a driver without `compatibility()` gives a digest. */
function driverParts(driver: Driver): Record<string, string> {
  if (driver.compatibility) {
    const parts: Record<string, string> = {};
    for (const [name, value] of Object.entries(driver.compatibility())) {
      if (typeof value === "string") parts[`driver.${boundedValue(name, 80)}`] = value;
    }
    return parts;
  }
  const identity = driver.fingerprint?.();
  return identity === undefined ? {} : { "driver.config": `sha256 ${shortDigest(identity)}` };
}

/**
 * `defaults` are the driver config's (`Driver.defaults()`). The agent's `defaults` and a call's
 * model or effort are call settings, chosen per turn, and never part of it.
 */
export function threadFingerprint(
  driver: Driver,
  driverId: string,
  workspace: string,
  resources: ResolvedResources,
  defaults: ModelDefaults = {},
  redactor?: FingerprintRedactor,
): ThreadFingerprint {
  const redact = (text: string): string => boundedValue(redactor ? redactor.redactText(text) : text);
  const parts: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...coreParts(driverId, workspace, resources, defaults), ...driverParts(driver) })) {
    parts[name] = redact(value);
  }
  const legacy: Record<string, string> = {
    driver: signatureOf(driverId),
    workspace: signatureOf(workspace),
    instructions: signatureOf(resources.instructions ?? null),
    tools: signatureOf(resources.tools),
    skills: signatureOf(resources.skills),
  };
  if (defaults.model !== undefined) legacy.model = signatureOf(defaults.model);
  if (defaults.effort !== undefined) legacy.effort = signatureOf(defaults.effort);
  return { value: `${FINGERPRINT_VERSION}${signatureOf(parts)}`, parts, legacy, driverId, redact };
}

/** The host setting behind a dimension, as a host would look for it. */
export function settingOf(dimension: string, driverId: string): string {
  switch (dimension) {
    case "driver":
      return "the driver given to createAgent";
    case "workspace":
    case "instructions":
    case "tools":
    case "skills":
    case "mcp":
      return `createAgent option ${dimension}`;
    case "model":
    case "effort":
      return `the ${driverId} driver config's default ${dimension}`;
    case "driver.config":
      return `the ${driverId} driver config`;
    default:
      return dimension.startsWith("driver.") ? `${driverId} driver config ${dimension.slice("driver.".length)}` : dimension;
  }
}

/** The stored side of a comparison. */
export interface RecordedFingerprint {
  fingerprint: string;
  fingerprintParts?: Record<string, string>;
}

/**
 * What differs between a stored thread and this agent, each with both values; empty when
 * compatible. A record from an earlier version is compared on the dimensions its digests can
 * verify: its driver-config and MCP digests also covered keys and endpoints, so comparing them
 * would strand every thread whose key was rotated.
 */
export function fingerprintMismatches(record: RecordedFingerprint, current: ThreadFingerprint): ThreadMismatch[] {
  if (record.fingerprint === current.value) return [];
  const recorded = record.fingerprintParts ?? {};
  const mismatch = (dimension: string, was: string | undefined, now: string | undefined): ThreadMismatch => ({
    dimension,
    setting: settingOf(dimension, current.driverId),
    recorded: was === undefined ? NOT_SET : was,
    current: now === undefined ? NOT_SET : now,
  });
  if (!record.fingerprint.startsWith(FINGERPRINT_VERSION)) {
    return LEGACY_VERIFIED.filter((name) => recorded[name] !== current.legacy[name]).map((name) =>
      mismatch(name, recorded[name] === undefined ? undefined : LEGACY_DIGEST, current.parts[name]),
    );
  }
  const names = [...new Set([...Object.keys(recorded), ...Object.keys(current.parts)])].sort();
  const differing = names
    .filter((name) => recorded[name] !== current.parts[name])
    .map((name) => mismatch(name, recorded[name] === undefined ? undefined : current.redact(recorded[name]), current.parts[name]));
  // Equal parts under a different digest: the record was altered outside the library.
  return differing.length > 0 ? differing : [mismatch("fingerprint", record.fingerprint, current.value)];
}
