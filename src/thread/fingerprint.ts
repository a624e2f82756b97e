/**
 * The compatibility fingerprint of a thread (DESIGN §8): a hash per stable dimension — driver,
 * the driver's encoding-relevant config, workspace, instructions, tools, skills, MCP — and one
 * over all of them. Per-turn content (prompts, inputs, metadata) is never part of it. Parts are
 * kept so a mismatch can name the dimension without revealing any value.
 */
import { signatureOf } from "../driver/signature.js";
import type { Driver, ResolvedResources } from "../driver/types.js";

export interface ThreadFingerprint {
  value: string;
  parts: Record<string, string>;
}

export function threadFingerprint(driver: Driver, driverId: string, workspace: string, resources: ResolvedResources): ThreadFingerprint {
  const parts: Record<string, string> = {
    driver: signatureOf(driverId),
    "driver.config": signatureOf(driver.fingerprint?.() ?? null),
    workspace: signatureOf(workspace),
    instructions: signatureOf(resources.instructions ?? null),
    tools: signatureOf(resources.tools),
    skills: signatureOf(resources.skills),
    mcp: signatureOf(resources.mcp),
  };
  return { value: signatureOf(parts), parts };
}

/** Names of the dimensions whose hashes differ (missing on either side counts as different). */
export function differingDimensions(expected: Record<string, string>, actual: Record<string, string>): string[] {
  const names = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  return [...names].filter((name) => expected[name] !== actual[name]).sort();
}
