/**
 * Vitest glue for the real-CLI lane. A CLI that cannot run here is reported as **skipped with
 * its reason** (in the suite title and on stderr) — never silently passed. With
 * `AGENT_ADAPTOR_REAL_CLI=require` an unavailable CLI fails instead.
 */
import { describe, it } from "vitest";
import {
  realCliAvailability,
  realCliMode,
  REAL_CLI_ENV,
  type RealCliAvailability,
  type RealCliName,
} from "../../src/testing/real-cli/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { assertWireEvents } from "../../src/testing/wire-events.js";

/** Generous per-test timeout: real processes, but no timing is asserted. */
export const REAL_CLI_TIMEOUT_MS = 120_000;

type Available = Extract<RealCliAvailability, { available: true }>;

/**
 * `describe` for one real CLI: runs `fn` when the CLI is available, otherwise registers the
 * suite as skipped with the reason in its title.
 */
export function describeRealCli(name: RealCliName, fn: (availability: Available) => void): void {
  const availability = realCliAvailability(name);
  if (availability.available) {
    describe(`real CLI ${name} (${availability.version})`, { timeout: REAL_CLI_TIMEOUT_MS }, () => fn(availability));
    return;
  }
  const { reason } = availability;
  if (realCliMode() === "require") {
    describe(`real CLI ${name}`, () => {
      it(`is available (${REAL_CLI_ENV}=require)`, () => {
        throw new Error(`real CLI ${name} is unavailable: ${reason}`);
      });
    });
    return;
  }
  process.stderr.write(`[real-cli] ${name}: skipped — ${reason}\n`);
  describe.skip(`real CLI ${name}`, () => {
    it(`skipped: ${reason}`, () => {});
  });
}

type Json = Record<string, unknown>;

/** Narrowing helper for untyped protocol messages. */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Text of every `text` part of the captured messages with `role`. */
export function capturedTexts(
  messages: readonly { role: string; parts: readonly { type: string; text?: string }[] }[],
  role: string,
): string[] {
  return messages
    .filter((m) => m.role === role)
    .flatMap((m) => m.parts)
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string);
}

/**
 * Every event of a lane run's stream, checked against the wire contract once the stream ends:
 * each survives a JSON round trip and validates against the exact event schema.
 */
export async function collectWireEvents(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  assertWireEvents(events);
  return events;
}
