/**
 * The shared vocabulary of the SPI: what hosts configure and drivers receive alike (policy,
 * schemas, approvals and questions, tools, skills, MCP servers, input limits). It sits below
 * `agent/` so drivers stand beside core, not on it.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { ApprovalDecision, ApprovalOption, Question } from "../events/types.js";

/** A JSON Schema document. */
export type JsonSchema = { [key: string]: unknown };

export interface Policy {
  sandbox?: "read-only" | "workspace-write" | "full-access";
  approval?: "never" | "on-request" | "on-failure" | "untrusted";
  network?: boolean;
}

/** What a driver asks the host to approve (through `RunRequest.approve()`). */
export interface ApprovalRequest {
  requestId: string;
  kind: "command" | "file_change" | "permissions" | "tool";
  callId?: string;
  summary: string;
  /** The provider's own choices, with stable ids; a decision may select one by `optionId`. */
  options: ApprovalOption[];
  /** The tool input as the provider reported it, redacted. */
  input?: unknown;
}

/** The run a host-facing request belongs to. */
export interface RequestOrigin {
  runId: string;
  /** Present when the run is a thread's turn. */
  threadId?: string;
}

/** An approval request as the host's handler receives it: redacted, with the run it belongs to. */
export interface HostApprovalRequest extends ApprovalRequest, RequestOrigin {}

/**
 * Decides one approval request. Settles it unless the stream's `respond()` (or a cancel or the
 * timeout) settled it first; a late result is then ignored.
 */
export type ApprovalHandler = (request: HostApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** What a driver asks the user (through `RunRequest.ask()`). */
export interface UserInputRequest {
  requestId: string;
  questions: Question[];
}

/** A question request as the host's handler receives it: redacted, with the run it belongs to. */
export interface HostUserInputRequest extends UserInputRequest, RequestOrigin {}

/** The answers, by question id (several values for a multi-select question), or a refusal. */
export type UserInputAnswer = { answers: Record<string, string | string[]> } | { declined: true };

/** Answers one question request; races the stream's `answer()` / `decline()` like an approval handler. */
export type UserInputHandler = (request: HostUserInputRequest, signal: AbortSignal) => Promise<UserInputAnswer>;

export interface InstructionBundle {
  name: string;
  text: string;
}

/**
 * A host tool as a driver sees it: its name, description and JSON Schema. The handler stays with
 * the agent's loopback MCP server (see `RunRequest.hostTools`).
 */
export interface ToolDeclaration {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
}

/** What a host tool's handler receives beside its validated arguments. */
export interface HostToolContext {
  /** Aborted when the run is cancelled or ends, or the provider abandons the call. */
  signal: AbortSignal;
  runId: string;
  /** The thread the run belongs to, for thread runs. */
  threadId?: string;
}

/** A host tool's input schema: a JSON Schema, or a Standard Schema offering its JSON Schema (e.g. zod 4). */
export type ToolInputSchema = JsonSchema | StandardSchemaV1;

/** The arguments a handler receives: the schema's output type, or a JSON object for a JSON Schema. */
export type ToolArgs<S> = S extends StandardSchemaV1<unknown, infer O> ? O : Record<string, unknown>;

/**
 * A tool the host implements, offered to the provider through the agent's loopback MCP server.
 * The handler's result reaches the model (a string as text, anything else as JSON); a throw
 * becomes a tool error the model sees.
 */
export interface HostTool<S extends ToolInputSchema = ToolInputSchema> {
  name: string;
  description?: string;
  inputSchema: S;
  handler(args: ToolArgs<S>, context: HostToolContext): unknown;
}

/**
 * A skill: a directory holding `SKILL.md` (and anything it refers to), or its files given inline
 * (relative path → content; `SKILL.md` required). Materialized into the provider's own skill
 * location inside the run's private configuration, never into the workspace or the user's config.
 */
export type SkillRef =
  | { name: string; description?: string; path: string }
  | { name: string; description?: string; files: Record<string, string> };

export type McpServerConfig =
  | { name: string; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; url: string; headers?: Record<string, string> };

export interface InputLimits {
  maxCount?: number;
  maxInputBytes?: number;
  maxTotalBytes?: number;
}
