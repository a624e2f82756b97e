/**
 * The shared vocabulary of the SPI: what hosts configure and drivers receive alike (policy,
 * schemas, approvals and questions, tools, skills, MCP servers, input limits). It sits below
 * `agent/` so drivers stand beside core, not on it.
 */
import type { ApprovalDecision, ApprovalOption, Question } from "../events/types.js";

/** A JSON Schema document. */
export type JsonSchema = { [key: string]: unknown };

export interface Policy {
  sandbox?: "read-only" | "workspace-write" | "full-access";
  approval?: "never" | "on-request" | "on-failure" | "untrusted";
  network?: boolean;
}

export interface ApprovalRequest {
  requestId: string;
  kind: "command" | "file_change" | "permissions" | "tool";
  callId?: string;
  summary: string;
  options: ApprovalOption[];
  /** The tool input as the provider reported it, redacted. */
  input?: unknown;
}

export type ApprovalHandler = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

export interface UserInputRequest {
  requestId: string;
  questions: Question[];
}

export type UserInputAnswer = { answers: Record<string, string | string[]> } | { declined: true };

export type UserInputHandler = (request: UserInputRequest, signal: AbortSignal) => Promise<UserInputAnswer>;

export interface InstructionBundle {
  name: string;
  text: string;
}

/** A host tool the provider may call (exposed via MCP where supported). */
export interface ToolDeclaration {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
}

export interface SkillRef {
  name: string;
  /** Directory holding the skill's SKILL.md. */
  path: string;
}

export type McpServerConfig =
  | { name: string; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; url: string; headers?: Record<string, string> };

export interface InputLimits {
  maxCount?: number;
  maxInputBytes?: number;
  maxTotalBytes?: number;
}
