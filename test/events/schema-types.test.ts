/**
 * The zod schemas and the TypeScript event types say the same thing: for every event type the
 * exact schema's inferred type equals `EventOf<K>` (a field added to one and not the other fails
 * to compile), and the checked-in JSON Schema (docs/agent-event.schema.json) is the one the
 * schemas generate (`node scripts/gen-events-schema.mjs --update` rewrites it).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { agentEventJsonSchema, buildEventSchemas } from "../../src/events/schema.js";
import type { AgentEvent, EventOf, EventType } from "../../src/events/types.js";
import { EVENT_TYPES, EVENTS_SCHEMA_VERSION } from "../../src/events/types.js";

type Exact = ReturnType<typeof buildEventSchemas>["events"];
/** Intersections flattened into one object type, so that equal shapes compare equal. */
type Flat<T> = T extends readonly (infer U)[] ? Flat<U>[] : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
type Inferred<K extends EventType> = Flat<z.output<Exact[K]>>;
type Declared<K extends EventType> = Flat<EventOf<K>>;

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

describe("schemas and types", () => {
  it("infer exactly the event types", () => {
    expectTypeOf<Inferred<"run.started">>().toEqualTypeOf<Declared<"run.started">>();
    expectTypeOf<Inferred<"thread.bound">>().toEqualTypeOf<Declared<"thread.bound">>();
    expectTypeOf<Inferred<"message.delta">>().toEqualTypeOf<Declared<"message.delta">>();
    expectTypeOf<Inferred<"message.completed">>().toEqualTypeOf<Declared<"message.completed">>();
    expectTypeOf<Inferred<"reasoning.delta">>().toEqualTypeOf<Declared<"reasoning.delta">>();
    expectTypeOf<Inferred<"reasoning.completed">>().toEqualTypeOf<Declared<"reasoning.completed">>();
    expectTypeOf<Inferred<"tool.started">>().toEqualTypeOf<Declared<"tool.started">>();
    expectTypeOf<Inferred<"tool.updated">>().toEqualTypeOf<Declared<"tool.updated">>();
    expectTypeOf<Inferred<"tool.completed">>().toEqualTypeOf<Declared<"tool.completed">>();
    expectTypeOf<Inferred<"plan.updated">>().toEqualTypeOf<Declared<"plan.updated">>();
    expectTypeOf<Inferred<"approval.requested">>().toEqualTypeOf<Declared<"approval.requested">>();
    expectTypeOf<Inferred<"approval.resolved">>().toEqualTypeOf<Declared<"approval.resolved">>();
    expectTypeOf<Inferred<"question.requested">>().toEqualTypeOf<Declared<"question.requested">>();
    expectTypeOf<Inferred<"question.resolved">>().toEqualTypeOf<Declared<"question.resolved">>();
    expectTypeOf<Inferred<"usage.observed">>().toEqualTypeOf<Declared<"usage.observed">>();
    expectTypeOf<Inferred<"notice">>().toEqualTypeOf<Declared<"notice">>();
    expectTypeOf<Inferred<"run.completed">>().toEqualTypeOf<Declared<"run.completed">>();
    expectTypeOf<Inferred<"run.failed">>().toEqualTypeOf<Declared<"run.failed">>();
    expectTypeOf<Inferred<"run.cancelled">>().toEqualTypeOf<Declared<"run.cancelled">>();
    expectTypeOf<Flat<z.output<ReturnType<typeof buildEventSchemas>["union"]>>>().toEqualTypeOf<Flat<AgentEvent>>();
  });

  it("cover every event type", () => {
    const { events } = buildEventSchemas(true);
    expect(Object.keys(events).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it("the JSON Schema names its version, and the checked-in copy is current", () => {
    const generated = agentEventJsonSchema();
    expect(generated.$id).toBe(`agent-adaptor/events/v${EVENTS_SCHEMA_VERSION}`);
    const committed = JSON.parse(readFileSync(join(root, "docs/agent-event.schema.json"), "utf8")) as unknown;
    expect(committed, "run node scripts/gen-events-schema.mjs --update").toEqual(generated);
  });
});
