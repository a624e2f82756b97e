import type { AgentEvent } from "./types.js";
import type { Usage } from "./usage.js";

/** Redacted provider terminal payload and stderr tail, for audit. */
export interface RawRecord {
  provider: string;
  terminal?: unknown;
  stderrTail?: string;
}

/** The outcome of one completed run. Failures reject with `RunFailedError`. */
export interface Result<T = unknown> {
  runId: string;
  threadId?: string;
  status: "completed";
  /** The final assistant message. */
  text: string;
  structured?: T;
  usage?: Usage;
  providerSessionId?: string;
  durationMs: number;
  /** The normalized timeline of this run. */
  transcript(): AgentEvent[];
  raw(): RawRecord;
}
