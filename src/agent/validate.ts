/**
 * Value schemas of the agent's options (construction options, `defaults`, call options). Each
 * shape is typed against its option interface, so an option cannot be added without a schema.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import type { ThreadStore } from "../thread/store.js";
import type { InputDiagnosticHandler } from "../input/errors.js";
import type { AgentOptions, CallDefaults, CallOptions } from "./options.js";
import type { ApprovalHandler, Policy, UserInputHandler } from "../driver/vocabulary.js";
import { isOutputOption } from "./structured/resolve.js";
import type { OutputOption } from "./structured/types.js";
import type { WatchdogOptions } from "./watchdogs.js";
import type { AgentObserver } from "./observers.js";
import { functionOf, httpUrl, jsonObject, nonEmptyString, stringRecord } from "../driver/validate-schema.js";

const SANDBOX_MODES = { "read-only": true, "workspace-write": true, "full-access": true } satisfies Record<NonNullable<Policy["sandbox"]>, true>;
const APPROVAL_MODES = { never: true, "on-request": true, "on-failure": true, untrusted: true } satisfies Record<NonNullable<Policy["approval"]>, true>;

const keysOf = <K extends string>(table: Record<K, true>) => Object.keys(table) as [K, ...K[]];

export const policySchema = z.strictObject({
  sandbox: z.enum(keysOf(SANDBOX_MODES)).optional(),
  approval: z.enum(keysOf(APPROVAL_MODES)).optional(),
  network: z.boolean().optional(),
} satisfies Record<keyof Policy, z.ZodType>);

const callDefaultsShape = {
  model: nonEmptyString.optional(),
  effort: nonEmptyString.optional(),
  policy: policySchema.optional(),
  onApproval: z.union([functionOf<ApprovalHandler>(), z.literal("stream")]).optional(),
  onUserInput: z.union([functionOf<UserInputHandler>(), z.literal("stream")]).optional(),
  approvalTimeoutMs: z.number().int("expected an integer").nonnegative("expected 0 or more milliseconds").optional(),
  metadata: stringRecord.optional(),
  output: z.custom<OutputOption>(isOutputOption, "expected a Standard Schema, a JSON Schema object or { schema, mode }").optional(),
  outputSchema: jsonObject.optional(),
  spawn: z.boolean().optional(),
  watchdogs: z
    .strictObject({
      idleMs: z.number().finite("expected a finite number of milliseconds").optional(),
      hardCapMs: z.number().finite("expected a finite number of milliseconds").optional(),
      repeatToolLimit: z.number().int("expected an integer").optional(),
    } satisfies Record<keyof WatchdogOptions, z.ZodType>)
    .optional(),
} satisfies Record<keyof CallDefaults, z.ZodType>;

export const callDefaultsSchema = z.strictObject(callDefaultsShape);

/** Call options; `signal`, `inputs` and `services` are checked separately (their errors have their own types). */
export const callOptionsSchema = z.strictObject({
  ...callDefaultsShape,
  signal: z.unknown().optional(),
  inputs: z.unknown().optional(),
  // Checked when resolved, against the agent's tools (agent/host-tool-schemas.ts).
  services: z.array(z.unknown()).optional(),
  traceContext: z
    .strictObject({
      // W3C Trace Context, version 00: an all-zero trace or span id is invalid.
      traceparent: z.string().regex(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/, "expected a W3C traceparent (00-<trace id>-<span id>-<flags>)"),
      tracestate: z.string().max(512, "expected at most 512 characters").regex(/^[\x20-\x7e]*$/, "expected printable ASCII").optional(),
    })
    .optional(),
} satisfies Record<keyof CallOptions, z.ZodType>);

/** Fails with each duplicated `name` in a list. */
function uniqueNames(items: readonly { name: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.name)) ctx.addIssue({ code: "custom", path: [index, "name"], message: "duplicate name" });
    seen.add(item.name);
  });
}

const absolutePath = z.string().refine(isAbsolute, "expected an absolute path");

const mcpServerSchema = z
  .strictObject({
    name: nonEmptyString,
    command: nonEmptyString.optional(),
    args: z.array(z.string()).optional(),
    env: stringRecord.optional(),
    url: httpUrl.optional(),
    headers: stringRecord.optional(),
  })
  .superRefine((server, ctx) => {
    const stdio = server.command !== undefined;
    const http = server.url !== undefined;
    if (stdio === http) ctx.addIssue({ code: "custom", path: [], message: "expected exactly one of command and url" });
    if (http && server.args !== undefined) ctx.addIssue({ code: "custom", path: ["args"], message: "only a command server takes args" });
    if (http && server.env !== undefined) ctx.addIssue({ code: "custom", path: ["env"], message: "only a command server takes env" });
    if (stdio && server.headers !== undefined) ctx.addIssue({ code: "custom", path: ["headers"], message: "only a url server takes headers" });
  });

const THREAD_STORE_METHODS = ["create", "get", "acquireLease", "saveCheckpoint", "close"] as const;

const agentOptionsShape = {
  workspace: absolutePath.optional(),
  instructions: z.union([z.string(), z.array(z.strictObject({ name: nonEmptyString, text: z.string() }))]).optional(),
  // Each tool's name, schema and handler are checked when it is resolved (agent/host-tool-schemas.ts).
  tools: z.array(z.unknown()).optional(),
  // Names, descriptions and contents are checked by the resource resolver (src/resources/check-skills.ts).
  skills: z
    .array(
      z.union([
        z.strictObject({ name: nonEmptyString, description: z.string().optional(), path: nonEmptyString }),
        z.strictObject({ name: nonEmptyString, description: z.string().optional(), files: stringRecord }),
      ]),
    )
    .superRefine(uniqueNames)
    .optional(),
  mcp: z.array(mcpServerSchema).superRefine(uniqueNames).optional(),
  threadStore: z
    .custom<ThreadStore>(
      (store) => typeof store === "object" && store !== null && THREAD_STORE_METHODS.every((m) => typeof (store as Record<string, unknown>)[m] === "function"),
      "expected a ThreadStore",
    )
    .optional(),
  events: z
    .strictObject({
      bufferSize: z.number().int("expected an integer").positive("expected a positive integer").optional(),
      overflow: z.enum(["block", "drop-deltas"]).optional(),
    })
    .optional(),
  // Its values are checked by the input limits themselves (an `InputError`, like at run time).
  inputLimits: z.unknown().optional(),
  onInputDiagnostic: functionOf<InputDiagnosticHandler>().optional(),
  startupTimeoutMs: z.number().int("expected an integer").nonnegative("expected 0 or more milliseconds").optional(),
  threadWriterIdleMs: z.number().int("expected an integer").nonnegative("expected 0 or more milliseconds").optional(),
  threadLeaseTtlMs: z.number().int("expected an integer").min(1000, "expected at least 1000 milliseconds").optional(),
  observers: z
    .array(
      z.custom<AgentObserver>(
        (value) => typeof value === "object" && value !== null && ["run", "operation"].every((key) => (value as Record<string, unknown>)[key] === undefined || typeof (value as Record<string, unknown>)[key] === "function"),
        "expected an observer (an object with optional run and operation functions)",
      ),
    )
    .optional(),
  defaults: callDefaultsSchema.optional(),
} satisfies Record<keyof AgentOptions, z.ZodType>;

export const agentOptionsSchema = z.strictObject(agentOptionsShape);
