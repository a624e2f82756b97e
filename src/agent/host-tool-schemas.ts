/**
 * Host tools checked and resolved once (`AgentOptions.tools` at createAgent, `CallOptions.services`
 * per call): a name the providers accept, a handler, and an input schema turned into the JSON
 * Schema the provider lists plus the validator the loopback server applies before the handler.
 * Every problem is a `ConfigError` naming the tool.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { ConfigError } from "../errors/index.js";
import type { HostTool, JsonSchema } from "../driver/vocabulary.js";
import type { ArgumentCheck, ServedTool } from "../resources/host-tools/served-tool.js";
import { compileJsonSchema, copyJsonSchema, jsonSchemaOfStandard } from "./structured/json-schema.js";
import { isStandardSchema } from "./structured/resolve.js";

/** What MCP clients (and so every provider) accept as a tool name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_KEYS = new Set(["name", "description", "inputSchema", "handler"]);

/**
 * Resolves a list of host tools; `taken` holds names already in use (the agent's tools, when
 * resolving a run's services), which these may not repeat.
 */
export function resolveHostTools(tools: unknown, option: "tools" | "services", taken: ReadonlySet<string> = new Set()): ServedTool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw new ConfigError(`${option} must be an array of host tools`, "config_invalid");
  const names = new Set(taken);
  return tools.map((tool: unknown, index) => {
    const served = resolveHostTool(tool, `${option}[${index}]`);
    const name = served.declaration.name;
    if (names.has(name)) {
      const clash = taken.has(name) ? "the agent already has a tool of that name" : "duplicate name";
      throw new ConfigError(`${option}[${index}] ("${name}"): ${clash}`, "config_invalid");
    }
    names.add(name);
    return served;
  });
}

function resolveHostTool(value: unknown, where: string): ServedTool {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ConfigError(`${where}: expected a host tool object`, "config_invalid");
  const tool = value as Partial<HostTool> & Record<string, unknown>;
  if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
    throw new ConfigError(`${where}.name: expected 1 to 64 letters, digits, "_" or "-"`, "config_invalid");
  }
  const named = `${where} ("${tool.name}")`;
  for (const key of Object.keys(tool)) if (!TOOL_KEYS.has(key)) throw new ConfigError(`${named}.${key}: unknown key`, "config_invalid");
  if (tool.description !== undefined && typeof tool.description !== "string") throw new ConfigError(`${named}.description: expected a string`, "config_invalid");
  if (typeof tool.handler !== "function") throw new ConfigError(`${named}.handler: expected a function`, "config_invalid");
  const { inputSchema, validate } = inputOf(tool.inputSchema, named);
  const handler = tool.handler.bind(tool) as (args: unknown, context: Parameters<HostTool["handler"]>[1]) => unknown;
  return {
    declaration: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), inputSchema },
    validate,
    call: (args, context) => handler(args, context),
  };
}

/** The schema's JSON Schema (an object's: MCP tool arguments are always one) and its validator. */
function inputOf(schema: unknown, named: string): { inputSchema: JsonSchema; validate(args: unknown): Promise<ArgumentCheck> } {
  let inputSchema: JsonSchema;
  let validate: (args: unknown) => Promise<ArgumentCheck>;
  try {
    if (isStandardSchema(schema)) {
      inputSchema = jsonSchemaOfStandard(schema);
      validate = (args) => validateStandard(schema, args);
    } else if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
      inputSchema = copyJsonSchema(schema);
      const check = compileJsonSchema(inputSchema);
      validate = async (args) => {
        const issues = check(args);
        return issues.length === 0 ? { ok: true, value: args } : { ok: false, problem: describeIssues(issues) };
      };
    } else {
      throw new ConfigError("expected a JSON Schema object or a Standard Schema (zod 4, valibot, ...)", "config_invalid");
    }
  } catch (error) {
    // The structured-output helpers name "output"; here the schema is this tool's.
    const message = error instanceof Error ? error.message.replace(/^output: /, "") : String(error);
    throw new ConfigError(`${named}.inputSchema: ${message}`, "config_invalid");
  }
  if (inputSchema.type !== "object") throw new ConfigError(`${named}.inputSchema: must describe an object (type: "object")`, "config_invalid");
  return { inputSchema, validate };
}

async function validateStandard(schema: StandardSchemaV1, args: unknown): Promise<ArgumentCheck> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema["~standard"].validate(args);
  } catch (error) {
    return { ok: false, problem: `the schema threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, problem: describeIssues(result.issues.map((issue) => ({ message: issue.message, path: (issue.path ?? []).map(keyOf) }))) };
}

function keyOf(segment: PropertyKey | StandardSchemaV1.PathSegment): PropertyKey {
  return typeof segment === "object" ? segment.key : segment;
}

function describeIssues(issues: readonly { message: string; path: readonly PropertyKey[] }[]): string {
  return issues.map(({ message, path }) => (path.length > 0 ? `${path.map(String).join(".")}: ${message}` : message)).join("; ");
}
