/**
 * The compatibility fingerprint of a thread (DESIGN §8): a hash per stable dimension — driver,
 * the driver's encoding-relevant config, workspace, instructions, tools, skills, MCP, and the
 * model and effort the driver's config gives as defaults when it gives any — and one over all of
 * them. Per-turn content (prompts, inputs, metadata) is never part of it. Parts are
 * kept so a mismatch can name the dimension without revealing any value.
 */
import { signatureOf } from "../driver/signature.js";
import type { Driver, ModelDefaults, ResolvedResources } from "../driver/types.js";

export interface ThreadFingerprint {
  value: string;
  parts: Record<string, string>;
}

/**
 * `defaults` are the driver config's (`Driver.defaults()`), the same for every driver whatever its
 * `fingerprint()` covers. The agent's `defaults` and a call's model or effort are call settings,
 * chosen per turn, and never part of it. Absent defaults add no dimension, so a driver without
 * any keeps the fingerprint it had before.
 */
export function threadFingerprint(
  driver: Driver,
  driverId: string,
  workspace: string,
  resources: ResolvedResources,
  defaults: ModelDefaults = {},
): ThreadFingerprint {
  const parts: Record<string, string> = {
    driver: signatureOf(driverId),
    "driver.config": signatureOf(driver.fingerprint?.() ?? null),
    workspace: signatureOf(workspace),
    instructions: signatureOf(resources.instructions ?? null),
    tools: signatureOf(resources.tools),
    skills: signatureOf(resources.skills),
    mcp: signatureOf(resources.mcp),
  };
  if (defaults.model !== undefined) parts.model = signatureOf(defaults.model);
  if (defaults.effort !== undefined) parts.effort = signatureOf(defaults.effort);
  return { value: signatureOf(parts), parts };
}

/** Names of the dimensions whose hashes differ (missing on either side counts as different). */
export function differingDimensions(expected: Record<string, string>, actual: Record<string, string>): string[] {
  const names = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  return [...names].filter((name) => expected[name] !== actual[name]).sort();
}
