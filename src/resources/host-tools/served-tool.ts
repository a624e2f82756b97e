/**
 * A host tool as the loopback server serves it: the declaration the provider lists, the argument
 * check and the handler. Core builds these from `HostTool`s (resolving their schemas once).
 */
import type { HostToolContext, ToolDeclaration } from "../../driver/vocabulary.js";

/** The arguments as the schema parsed them, or what is wrong with them (for the model to read). */
export type ArgumentCheck = { ok: true; value: unknown } | { ok: false; problem: string };

export interface ServedTool {
  readonly declaration: ToolDeclaration;
  validate(args: unknown): Promise<ArgumentCheck>;
  call(args: unknown, context: HostToolContext): unknown;
}

/** What an endpoint serves while a run holds it: that run's identity, services and lifetime. */
export interface RunBinding {
  readonly runId: string;
  readonly threadId?: string;
  /** The run's own tools (`CallOptions.services`), beside the agent's. */
  readonly services: readonly ServedTool[];
  /** Aborts when the run is cancelled or ends: every handler it started is told to stop. */
  readonly signal: AbortSignal;
}
