/**
 * The wire contract, as a property: every event of every type survives
 * `JSON.parse(JSON.stringify(e))` deep-equal and validates against the exact and the consumer
 * schema (zod) and the JSON Schema export (ajv, as a consumer in another language would).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentEventJsonSchema, agentEventSchema, exactAgentEventSchema } from "../../src/events/schema.js";
import { EVENT_TYPES } from "../../src/events/types.js";
import { anyEvent, eventOf } from "./arbitraries.js";

const ajv = new Ajv2020({ strict: false });
const validateExact = ajv.compile(agentEventJsonSchema({ exact: true }));
const validateConsumer = ajv.compile(agentEventJsonSchema());

describe("every event type", () => {
  for (const type of EVENT_TYPES) {
    it(`${type} survives a JSON round trip and validates`, () => {
      fc.assert(
        fc.property(eventOf(type), (event) => {
          const wire = JSON.parse(JSON.stringify(event)) as unknown;
          expect(wire).toStrictEqual(event);
          expect(exactAgentEventSchema.safeParse(wire).error).toBeUndefined();
          expect(agentEventSchema.safeParse(wire).success).toBe(true);
          expect(validateExact(wire), JSON.stringify(validateExact.errors)).toBe(true);
          expect(validateConsumer(wire)).toBe(true);
        }),
        { numRuns: 60 },
      );
    });
  }
});

describe("the schemas refuse what breaks the contract", () => {
  it("a wrong field type fails both schemas", () => {
    fc.assert(
      fc.property(anyEvent, (event) => {
        const broken = { ...event, seq: "one" };
        expect(exactAgentEventSchema.safeParse(broken).success).toBe(false);
        expect(agentEventSchema.safeParse(broken).success).toBe(false);
        expect(validateConsumer(broken)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it("an unknown key fails the exact schema only: a later release of the same version may add fields", () => {
    fc.assert(
      fc.property(anyEvent, (event) => {
        const extended = { ...event, addedLater: 1 };
        expect(exactAgentEventSchema.safeParse(extended).success).toBe(false);
        expect(validateExact(extended)).toBe(false);
        expect(agentEventSchema.safeParse(extended).success).toBe(true);
        expect(validateConsumer(extended)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("an unknown notice code fails the exact schema only", () => {
    const notice = { type: "notice", seq: 1, runId: "r", at: 1, level: "info", code: "added_later", message: "m" };
    expect(exactAgentEventSchema.safeParse(notice).success).toBe(false);
    expect(agentEventSchema.safeParse(notice).success).toBe(true);
  });

  it("an unknown event type fails", () => {
    const event = { type: "run.paused", seq: 1, runId: "r", at: 1 };
    expect(agentEventSchema.safeParse(event).success).toBe(false);
    expect(validateConsumer(event)).toBe(false);
  });
});
