/**
 * How structured output is read from a final message (documented in docs/api.md): the whole
 * trimmed message when it is one JSON value, else the last fenced block marked json or unmarked;
 * nothing else. And the `--json-schema` argument Claude Code gets: the schema without `$schema`.
 */
import { describe, expect, it } from "vitest";
import { extractJson } from "../../src/agent/structured/extract.js";
import { buildArgs } from "../../src/drivers/stream-json/argv.js";
import { claudeDialect } from "../../src/drivers/claude/dialect.js";

describe("extractJson", () => {
  it.each([
    ["a bare object", '  {"a":1}\n', { a: 1 }],
    ["a bare array", "[1,2]", [1, 2]],
    ["a bare string, number, boolean or null", "null", null],
    ["a json fence among prose", 'Sure:\n```json\n{"a":1}\n```\nDone.', { a: 1 }],
    ["an unmarked fence", '```\n{"a":2}\n```', { a: 2 }],
    ["a tilde fence", '~~~json\n{"a":3}\n~~~', { a: 3 }],
    ["the last of several fences", '```json\n{"a":1}\n```\nor better:\n```json\n{"a":4}\n```', { a: 4 }],
    ["a longer fence holding backticks", '````json\n{"a":"```"}\n````', { a: "```" }],
  ])("reads %s", (_name, text, value) => {
    expect(extractJson(text)).toEqual({ ok: true, value });
  });

  it.each([
    ["prose around a bare value", 'The answer is {"a":1}.'],
    ["a fence of another language", '```ts\n{"a":1}\n```'],
    ["a last fence that does not parse", '```json\n{"a":1}\n```\n```json\n{a: 2}\n```'],
    ["an empty message", "   "],
    ["an unclosed fence", '```json\n{"a":1}'],
  ])("refuses %s", (_name, text) => {
    expect(extractJson(text)).toEqual({ ok: false });
  });
});

describe("Claude Code's --json-schema argument", () => {
  it("carries the schema without its $schema declaration, and only when the run has one", () => {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { a: { type: "number" } } };
    const args = buildArgs(claudeDialect, {}, { policy: {}, outputSchema: schema });
    const at = args.indexOf("--json-schema");
    expect(JSON.parse(args[at + 1]!)).toEqual({ type: "object", properties: { a: { type: "number" } } });
    expect(buildArgs(claudeDialect, {}, { policy: {} })).not.toContain("--json-schema");
  });
});
