/**
 * The fake driver's script: what one run does, step by step. JSON-serializable, so the same
 * script can run in-process or inside a real child process.
 */
import type { ApprovalRequest, UserInputRequest } from "../../driver/vocabulary.js";
import type { ErrorCode } from "../../errors/index.js";
import type { DriverEvent } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";

export type FakeStep =
  /** Emit one event. */
  | { emit: DriverEvent }
  /** Emit `count` deltas of `text` for one item (generated, so a million cost no script memory). */
  | { deltas: { count: number; text?: string; itemId?: string; kind?: "message" | "reasoning" } }
  /** The prompt may have reached the provider from here on. */
  | { markDelivered: true }
  /** Ask core for an approval; the decision is emitted as a notice so tests can see it. */
  | { approve: ApprovalRequest }
  /** Ask the user through core. */
  | { ask: UserInputRequest }
  /** Block until the run is cancelled; after `complete`, this models a process that retires only then. */
  | { waitForAbort: true }
  /**
   * The provider reported the turn finished: announce `run.completed` now. Later steps model the
   * process retiring; a cancel arriving during them does not change the outcome.
   */
  | { complete: true }
  /** Throw a provider error from `run()`. */
  | { fail: { code?: ErrorCode; message: string; retryable?: boolean } }
  /** The child process exits abruptly with this code (process mode only; in-process it fails the same way). */
  | { crash: { exitCode: number } }
  /**
   * Call one of the agent's host tools (or the run's services) through the process's endpoint with
   * a real MCP client, emitting `tool.started` / `tool.completed` (kind "mcp") with its result.
   */
  | { hostTool: { name: string; arguments?: Record<string, unknown> } }
  /** List the endpoint's tools now; their names are emitted as a `fake_notice` (JSON array). */
  | { listHostTools: true };

export interface FakeRunScript {
  steps: FakeStep[];
  /** The final text `run()` resolves with; default: the concatenated message deltas. */
  text?: string;
  usage?: Usage;
  providerSessionId?: string;
}

/** Deterministic content for generated deltas. */
export function deltaEvent(step: Extract<FakeStep, { deltas: unknown }>["deltas"]): DriverEvent {
  const type = step.kind === "reasoning" ? "reasoning.delta" : "message.delta";
  return { type, itemId: step.itemId ?? "item_1", text: step.text ?? "x" };
}
