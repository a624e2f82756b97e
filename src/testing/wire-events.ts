/**
 * The wire contract check every recorded timeline goes through (the conformance kit, the
 * real-CLI lane): each event is plain JSON data that survives `JSON.parse(JSON.stringify(e))`
 * unchanged and validates against the exact schema of this release.
 */
import assert from "node:assert/strict";
import { exactAgentEventSchema } from "../events/schema.js";

/** Throws an `AssertionError` naming the first event that breaks the wire contract and why. */
export function assertWireEvents(events: readonly unknown[]): void {
  events.forEach((event, index) => {
    const type = typeof event === "object" && event !== null ? String((event as { type?: unknown }).type) : typeof event;
    const label = `event ${index} (${type.slice(0, 64)})`;
    assert.deepStrictEqual(JSON.parse(JSON.stringify(event)) as unknown, event, `${label} survives a JSON round trip unchanged`);
    const parsed = exactAgentEventSchema.safeParse(event);
    if (!parsed.success) {
      // Paths and messages only: the values may be provider output.
      const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(event)"}: ${issue.message}`);
      assert.fail(`${label} does not match the event schema: ${issues.join("; ")}`);
    }
  });
}
