/**
 * Typed structured output through core (issue #15 item 7): `output` takes a Standard Schema
 * (zod here), a JSON Schema (validated with ajv) or `{ schema, mode }`; the value is validated and
 * typed; a non-JSON or refused answer fails with `output_invalid` and the raw text; a driver
 * without native support refuses before launch unless the host opts into the prompted mode.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver, RunRequest } from "../../src/driver/types.js";
import { ConfigError, FeatureUnsupportedError, OutputInvalidError, RunFailedError } from "../../src/errors/index.js";
import type { AgentEvent, Result } from "../../src/events/types.js";
import { fakeDriver } from "../../src/testing/index.js";

const Fruit = z.object({ fruit: z.string(), count: z.number().int(), note: z.string().default("none") });
type FruitOut = z.output<typeof Fruit>;

/** A fake driver answering `text`, recording what each run was asked; `native` declares structured output. */
function answering(text: string, native: boolean) {
  const base = fakeDriver({ script: { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "item_1", text } }], text } });
  const requests: Pick<RunRequest, "prompt" | "outputSchema">[] = [];
  const driver: Driver = {
    ...base,
    descriptor: () => {
      const d = base.descriptor();
      return { ...d, features: { ...d.features, structuredOutput: native } };
    },
    run: (request, sink, signal) => {
      requests.push({ prompt: request.prompt, ...(request.outputSchema !== undefined ? { outputSchema: request.outputSchema } : {}) });
      return base.run(request, sink, signal);
    },
  };
  return { driver, requests, probe: base.probe };
}

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("native structured output with a zod schema", () => {
  it("sends the schema's JSON Schema, validates the answer and types result.structured from the schema", async () => {
    const { driver, requests } = answering('{"fruit":"fig","count":3}', true);
    const agent = createAgent(driver);
    try {
      const result = await agent.run("JSON please", { output: Fruit });
      expectTypeOf(result).toEqualTypeOf<Result<FruitOut>>();
      expectTypeOf(result.structured).toEqualTypeOf<{ fruit: string; count: number; note: string } | undefined>();
      // The schema's output value: its default applied.
      expect(result.structured).toEqual({ fruit: "fig", count: 3, note: "none" });
      expect(result.text).toBe('{"fruit":"fig","count":3}');
      expect(requests).toEqual([{ prompt: "JSON please", outputSchema: Fruit["~standard"].jsonSchema.output({ target: "draft-2020-12" }) }]);

      const stream = agent.stream("JSON please", { output: { schema: Fruit, mode: "native" } });
      expectTypeOf(stream.result).toEqualTypeOf<Promise<Result<FruitOut>>>();
      await drain(stream);
      expect((await stream.result).structured?.count).toBe(3);

      const untyped = await agent.run("plain");
      expectTypeOf(untyped.structured).toEqualTypeOf<unknown>();
      expect(untyped.structured).toBeUndefined();
    } finally {
      await agent.close();
    }
  });

  it("fails a schema-refused answer with output_invalid: raw text in partial, the issues, run.failed last", async () => {
    const raw = '{"fruit":"fig","count":"three"}';
    const agent = createAgent(answering(raw, true).driver);
    try {
      const stream = agent.stream("JSON please", { output: Fruit });
      const events = await drain(stream);
      const error = await stream.result.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputInvalidError);
      expect(error).toBeInstanceOf(RunFailedError);
      const invalid = error as OutputInvalidError;
      expect(invalid).toMatchObject({ code: "output_invalid", phase: "after_delivery", retryable: true, partial: { runId: stream.runId, text: raw } });
      expect(invalid.issues.map((issue) => issue.path)).toEqual([["count"]]);
      expect(invalid.message).toMatch(/^structured output does not match the schema: count: /);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "output_invalid", phase: "after_delivery", retryable: true } });
      expect(events.some((e) => e.type === "run.completed")).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("fails an answer that is not JSON with output_invalid and no issues", async () => {
    const raw = "Sure! The fruit is a fig, three of them.";
    const agent = createAgent(answering(raw, true).driver);
    try {
      const error = (await agent.run("JSON please", { output: Fruit }).catch((e: unknown) => e)) as OutputInvalidError;
      expect(error).toBeInstanceOf(OutputInvalidError);
      expect(error.message).toBe("structured output: the final message is not a JSON value");
      expect(error.partial.text).toBe(raw);
      expect(error.issues).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});

describe("schemas whose output differs from their input", () => {
  it("sends the input side when the output cannot be expressed (a transform) and returns the transformed value", async () => {
    const Sized = z.object({ word: z.string().transform((word) => word.length) });
    const { driver, requests } = answering('{"word":"kiwi"}', true);
    const agent = createAgent(driver);
    try {
      const result = await agent.run("JSON please", { output: Sized });
      expectTypeOf(result.structured).toEqualTypeOf<{ word: number } | undefined>();
      expect(result.structured).toEqual({ word: 4 });
      expect(requests[0]!.outputSchema).toEqual(z.toJSONSchema(Sized, { io: "input" }));
    } finally {
      await agent.close();
    }
  });

  it("turns a schema that throws while validating into output_invalid, still ending the run", async () => {
    const Throwing = z.object({ word: z.string() }).transform(() => {
      throw new Error("refinement bug\nsecond line");
    });
    const agent = createAgent(answering('{"word":"kiwi"}', true).driver);
    try {
      const stream = agent.stream("JSON please", { output: Throwing });
      const events = await drain(stream);
      await expect(stream.result).rejects.toMatchObject({ code: "output_invalid", issues: [{ path: [], message: "the schema threw: refinement bug" }] });
      expect(events.at(-1)?.type).toBe("run.failed");
    } finally {
      await agent.close();
    }
  });
});

describe("a provider that validates its model's answers itself", () => {
  const givingUp = () => {
    const base = fakeDriver({ script: { steps: [{ markDelivered: true }, { fail: { code: "structured_output_failed", message: "gave up after 5 attempts: /count: must be number" } }] } });
    const driver: Driver = { ...base, descriptor: () => ({ ...base.descriptor(), features: { ...base.descriptor().features, structuredOutput: true } }) };
    return driver;
  };

  it("fails output_invalid with the provider's reason when it gives up on a call with output", async () => {
    const agent = createAgent(givingUp());
    try {
      const stream = agent.stream("JSON please", { output: Fruit });
      const events = await drain(stream);
      const error = await stream.result.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputInvalidError);
      expect(error).toMatchObject({
        code: "output_invalid",
        message: "structured output: the provider refused the model's answers until it gave up: gave up after 5 attempts: /count: must be number",
        issues: [],
      });
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "output_invalid" } });
    } finally {
      await agent.close();
    }
  });

  it("keeps the provider's own code for a run without output (a schema the host set in the CLI's args)", async () => {
    const agent = createAgent(givingUp());
    try {
      const error = await agent.run("JSON please").catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(OutputInvalidError);
      expect(error).toMatchObject({ code: "structured_output_failed" });
    } finally {
      await agent.close();
    }
  });
});

describe("a driver without native structured output", () => {
  it("refuses the run before launch unless the host opts into the prompted mode", async () => {
    const { driver, probe } = answering('{"fruit":"fig","count":3}', false);
    const agent = createAgent(driver);
    try {
      const stream = agent.stream("JSON please", { output: Fruit });
      const events = await drain(stream);
      const error = await stream.result.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FeatureUnsupportedError);
      expect(error).toMatchObject({ code: "feature_unsupported", phase: "before_delivery", runId: stream.runId });
      expect((error as Error).message).toContain('mode: "prompted"');
      expect(events.map((e) => e.type)).toEqual(["run.started", "run.failed"]);
      expect(probe.calls.run).toBe(0);
    } finally {
      await agent.close();
    }
  });

  it("prompted: appends the instruction with the JSON Schema and extracts the last fenced json block", async () => {
    const answer = 'Here it is:\n```json\n{"fruit":"kiwi","count":1}\n```\nAnything else?';
    const { driver, requests } = answering(answer, false);
    const agent = createAgent(driver);
    try {
      const result = await agent.run("JSON please", { output: { schema: Fruit, mode: "prompted" } });
      expectTypeOf(result.structured).toEqualTypeOf<FruitOut | undefined>();
      expect(result.structured).toEqual({ fruit: "kiwi", count: 1, note: "none" });
      expect(result.text).toBe(answer);
      const [request] = requests;
      expect(request!.outputSchema).toBeUndefined();
      const schemaText = JSON.stringify(Fruit["~standard"].jsonSchema.output({ target: "draft-2020-12" }));
      expect(request!.prompt).toBe(
        `JSON please\n\nReply with a single JSON value that conforms to the JSON Schema below, and nothing else: no prose before or after it.\nJSON Schema:\n${schemaText}`,
      );
    } finally {
      await agent.close();
    }
  });

  it("prompted: prose around a bare value is not searched, it is output_invalid", async () => {
    const agent = createAgent(answering('The answer is {"fruit":"kiwi","count":1}.', false).driver);
    try {
      const error = await agent.run("JSON please", { output: { schema: Fruit, mode: "prompted" } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "output_invalid", partial: { text: 'The answer is {"fruit":"kiwi","count":1}.' } });
    } finally {
      await agent.close();
    }
  });

  it("auto: native where the driver has it, prompted where it does not", async () => {
    const answer = '{"fruit":"fig","count":2}';
    for (const native of [true, false]) {
      const { driver, requests } = answering(answer, native);
      const agent = createAgent(driver);
      try {
        const result = await agent.run("JSON please", { output: { schema: Fruit, mode: "auto" } });
        expect(result.structured).toEqual({ fruit: "fig", count: 2, note: "none" });
        expect(requests[0]!.outputSchema !== undefined).toBe(native);
        expect(requests[0]!.prompt === "JSON please").toBe(native);
      } finally {
        await agent.close();
      }
    }
  });
});

describe("a JSON Schema as output (validated with ajv)", () => {
  const schema = { type: "object", properties: { ok: { type: "boolean" }, tags: { type: "array", items: { type: "string" } } }, required: ["ok"], additionalProperties: false };

  it("accepts a matching answer as is, typed unknown, and sends the schema unchanged", async () => {
    const { driver, requests } = answering('{"ok":true,"tags":["a"]}', true);
    const agent = createAgent(driver);
    try {
      const result = await agent.run("JSON please", { output: schema });
      expectTypeOf(result.structured).toEqualTypeOf<unknown>();
      expect(result.structured).toEqual({ ok: true, tags: ["a"] });
      expect(requests[0]!.outputSchema).toEqual(schema);
    } finally {
      await agent.close();
    }
  });

  it("refuses a mismatching answer with ajv's issues, each with its path", async () => {
    const agent = createAgent(answering('{"ok":"yes","tags":["a",2],"extra":1}', true).driver);
    try {
      const error = (await agent.run("JSON please", { output: schema }).catch((e: unknown) => e)) as OutputInvalidError;
      expect(error).toBeInstanceOf(OutputInvalidError);
      expect(error.issues).toEqual(
        expect.arrayContaining([
          { path: ["ok"], message: "must be boolean" },
          { path: ["tags", 1], message: "must be string" },
          { path: [], message: "must NOT have additional properties" },
        ]),
      );
    } finally {
      await agent.close();
    }
  });

  it("validates with the draft the schema names (2020-12 prefixItems)", async () => {
    const tuple = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false };
    const agent = createAgent(answering('["a", "b"]', true).driver);
    try {
      const error = (await agent.run("JSON please", { output: tuple }).catch((e: unknown) => e)) as OutputInvalidError;
      expect(error.issues).toEqual([{ path: [1], message: "must be number" }]);
    } finally {
      await agent.close();
    }
  });

  it("refuses an invalid JSON Schema with a ConfigError before anything launches", async () => {
    const { driver, probe } = answering("{}", true);
    const agent = createAgent(driver);
    try {
      const error = await agent.run("JSON please", { output: { type: "nope" } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/^output: the JSON Schema is invalid/);
      expect(probe.calls.run).toBe(0);
    } finally {
      await agent.close();
    }
  });

  it("keeps outputSchema as the deprecated alias of a JSON Schema output, and refuses both at once", async () => {
    const { driver, requests } = answering('{"ok":false}', true);
    const agent = createAgent(driver);
    try {
      const result = await agent.run("JSON please", { outputSchema: schema });
      expect(result.structured).toEqual({ ok: false });
      expect(requests[0]!.outputSchema).toEqual(schema);
      const error = await agent.run("JSON please", { outputSchema: schema, output: schema }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe("pass output or the deprecated outputSchema, not both");
      const invalid = await agent.run("JSON please", { outputSchema: { type: "object", required: ["missing"] } }).catch((e: unknown) => e);
      expect(invalid).toMatchObject({ code: "output_invalid" });
    } finally {
      await agent.close();
    }
  });
});

describe("output as a default and on threads", () => {
  it("takes a zod schema as a construction default, and a call's output replaces it", async () => {
    const { driver, requests } = answering('{"fruit":"fig","count":3}', true);
    const agent = createAgent(driver, { defaults: { output: Fruit } });
    try {
      expect((await agent.run("JSON please")).structured).toEqual({ fruit: "fig", count: 3, note: "none" });
      const Loose = z.object({ fruit: z.string() });
      const result = await agent.run("JSON please", { output: Loose });
      expectTypeOf(result.structured).toEqualTypeOf<{ fruit: string } | undefined>();
      expect(result.structured).toEqual({ fruit: "fig" });
      expect(requests[1]!.outputSchema).toMatchObject({ required: ["fruit"] });
    } finally {
      await agent.close();
    }
  });

  it("types and validates a thread run's structured output", async () => {
    const agent = createAgent(answering('{"fruit":"fig","count":3}', true).driver);
    try {
      const thread = await agent.startThread();
      const result = await thread.run("JSON please", { output: Fruit });
      expectTypeOf(result.structured).toEqualTypeOf<FruitOut | undefined>();
      expect(result).toMatchObject({ threadId: thread.id, structured: { fruit: "fig", count: 3 } });
      const stream = thread.stream("JSON please", { output: z.object({ count: z.literal(4) }) });
      expectTypeOf(stream.result).toEqualTypeOf<Promise<Result<{ count: 4 }>>>();
      await drain(stream);
      await expect(stream.result).rejects.toMatchObject({ code: "output_invalid", partial: { text: '{"fruit":"fig","count":3}' } });
    } finally {
      await agent.close();
    }
  });
});

describe("other Standard Schemas", () => {
  /** A minimal non-zod Standard Schema accepting positive numbers. */
  const positive = (jsonSchema?: Record<string, unknown>) => ({
    "~standard": {
      version: 1 as const,
      vendor: "handmade",
      validate: (value: unknown): StandardSchemaV1.Result<number> =>
        typeof value === "number" && value > 0 ? { value } : { issues: [{ message: "expected a positive number" }] },
      ...(jsonSchema ? { jsonSchema: { input: () => jsonSchema, output: () => jsonSchema } } : {}),
      types: undefined as unknown as StandardSchemaV1.Types<unknown, number>,
    },
  });

  it("uses the vendor's Standard JSON Schema and its validate (sync or async)", async () => {
    const { driver, requests } = answering("42", true);
    const agent = createAgent(driver);
    try {
      const result = await agent.run("a number", { output: positive({ type: "number", exclusiveMinimum: 0 }) });
      expectTypeOf(result.structured).toEqualTypeOf<number | undefined>();
      expect(result.structured).toBe(42);
      expect(requests[0]!.outputSchema).toEqual({ type: "number", exclusiveMinimum: 0 });
    } finally {
      await agent.close();
    }
  });

  it("quotes an issue that repeats the answer without the front of a registered secret its cut would leave", async () => {
    // A key of no recognisable shape, known only because the driver registers it.
    const key = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";
    const echoing = {
      "~standard": {
        version: 1 as const,
        vendor: "handmade",
        validate: (value: unknown): StandardSchemaV1.Result<string> => ({ issues: [{ message: `not a fruit: ${String(value)}` }] }),
        jsonSchema: { input: () => ({ type: "string" }), output: () => ({ type: "string" }) },
        types: undefined as unknown as StandardSchemaV1.Types<unknown, string>,
      },
    };
    // The summary cuts an issue at 160 characters: "not a fruit: " and 136 more put the key's first 10 before the cut.
    const { driver } = answering(JSON.stringify(`${"y".repeat(135)} ${key} and more`), true);
    const agent = createAgent({ ...driver, secrets: () => [key] });
    try {
      const stream = agent.stream("a fruit", { output: echoing });
      const events = await drain(stream);
      const error = (await stream.result.catch((e: unknown) => e)) as OutputInvalidError;
      expect(error).toBeInstanceOf(OutputInvalidError);
      expect(error.message).toContain("not a fruit: yyyy");
      // The model's own message is published as written; the failure is redacted.
      const failed = events.filter((event) => event.type === "run.failed");
      const shown = JSON.stringify({ failed, message: error.message, issues: error.issues, partial: error.partial });
      expect(shown).toContain("not a fruit: yyyy");
      expect(shown).not.toContain(key.slice(0, 8));
    } finally {
      await agent.close();
    }
  });

  it("refuses a schema that offers no JSON Schema with a ConfigError naming its vendor", async () => {
    const agent = createAgent(answering("42", true).driver);
    try {
      const error = await agent.run("a number", { output: positive() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain("a handmade schema offers no JSON Schema");
    } finally {
      await agent.close();
    }
  });

  it("refuses an unknown mode and a value that is no schema", async () => {
    const agent = createAgent(answering("42", true).driver);
    try {
      await expect(agent.run("x", { output: { schema: Fruit, mode: "loose" as "auto" } })).rejects.toThrow('output.mode must be "native", "prompted" or "auto"');
      await expect(agent.run("x", { output: "string" as unknown as z.ZodString })).rejects.toBeInstanceOf(ConfigError);
    } finally {
      await agent.close();
    }
  });
});
