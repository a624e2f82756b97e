/**
 * Subagents: the `task` tool runs a child loop with a fresh conversation (the task's prompt
 * only) on the run's client and wire, with the run's tools (and `task` again while the depth
 * allows), approvals and signal, so a cancel of the run stops it at once. Its events are nested
 * under the task call: its text streams as `tool.updated` output of that call, its own tool calls
 * are `tool.*` events with `parentCallId` naming it (their ids prefixed with it, so they never
 * clash with the parent's), and its usage counts to the turn. Its final message is the task's
 * result. Depth and the number of tasks per run are bounded.
 */
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { RunRequest } from "../../driver/types.js";
import type { DriverEvent } from "../../events/types.js";
import type { OpenAIClient } from "./client.js";
import type { ResolvedOpenAIConfig } from "./config.js";
import type { ConversationFile, ConversationTurn, ToolCallRecord } from "./conversation.js";
import { runLoop, RunQueues } from "./loop.js";
import type { ToolCallContext } from "./tool-calls.js";
import type { Toolbox } from "./toolbox.js";
import type { ToolOutcome } from "./tools/types.js";
import { TurnUsage } from "./usage.js";
import type { ModelRequest, WireApi } from "./wire/types.js";

const PROVIDER = "openai";
const SUBAGENT_RULES =
  "You are a subagent: another agent started you for one task. Work on your own; nobody answers questions. Your final message is your answer to that agent, so make it complete and self-contained.";

/** What every subagent of one run shares with it. */
export interface TaskHost {
  client: OpenAIClient;
  wire: WireApi;
  config: ResolvedOpenAIConfig;
  /** The run's request fields for the model (its output schema is the run's own, not a task's). */
  base: Omit<ModelRequest, "messages" | "tools" | "outputSchema">;
  toolbox: Toolbox;
  request: Pick<RunRequest, "approve" | "policy" | "workspace">;
  allowed: Set<string>;
  usage: TurnUsage;
  /** Tasks started in this run so far, at every depth. */
  started: { count: number };
  /** The driver's redaction (see `LoopContext.redact`). */
  redact(text: string): string;
}

/** A child event as the parent publishes it, nested under call `parent`; undefined: not published. */
export function nested(event: DriverEvent, parent: string): DriverEvent | undefined {
  const id = (callId: string) => `${parent}/${callId}`;
  switch (event.type) {
    case "message.delta":
      return { type: "tool.updated", callId: parent, output: event.text, provenance: { provider: PROVIDER, itemId: parent } };
    case "message.completed":
      return { type: "tool.updated", callId: parent, output: "\n\n", provenance: { provider: PROVIDER, itemId: parent } };
    case "tool.started":
      return { ...event, callId: id(event.callId), parentCallId: event.parentCallId === undefined ? parent : id(event.parentCallId) };
    case "tool.updated":
    case "tool.completed":
      return { ...event, callId: id(event.callId) };
    case "notice":
      return event;
    default:
      // Reasoning stays the child's; its usage is added to the turn when it ends.
      return undefined;
  }
}

export class Subagents {
  readonly #host: TaskHost;
  readonly #depth: number;
  readonly #emit: (event: DriverEvent) => Promise<void> | undefined;

  /** `depth`: of the agents whose `task` calls this runs (the run's own agent is 0). */
  constructor(host: TaskHost, emit: (event: DriverEvent) => Promise<void> | undefined, depth = 0) {
    this.#host = host;
    this.#emit = emit;
    this.#depth = depth;
  }

  /** Runs one `task` call's subagent to its answer. */
  readonly run = async (call: ToolCallRecord, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> => {
    const host = this.#host;
    const limits = host.config.subagents!;
    const prompt = input.prompt;
    if (typeof prompt !== "string" || prompt.trim() === "") return { output: "Invalid arguments for task: `prompt` must be a non-empty string.", isError: true };
    if (host.started.count >= limits.maxTasks) return { output: `Not run: this turn already started ${limits.maxTasks} subagent tasks (the limit); do the work yourself.`, isError: true };
    host.started.count++;
    const depth = this.#depth + 1;
    const emitter = new OrderedEmitter({ emit: (event) => { const out = nested(event, call.id); return out === undefined ? undefined : this.#emit(out); } });
    const toolbox = host.toolbox.withTask(depth < limits.maxDepth);
    const usage = new TurnUsage([], undefined);
    const turn: ConversationTurn = { runId: call.id, startedAt: new Date().toISOString(), model: host.base.model, messages: [{ role: "user", content: [{ type: "text", text: prompt }], origin: "prompt" }] };
    const conversation: ConversationFile = { version: 1, id: `task_${call.id}`, createdAt: turn.startedAt, updatedAt: turn.startedAt, turns: [turn] };
    // A denial with `interrupt` inside the subagent stops the user's whole turn, not only the child's loop.
    let interrupted = false;
    const approve: RunRequest["approve"] = async (request) => {
      const decision = await host.request.approve({ ...request, requestId: `${call.id}/${request.requestId}`, ...(request.callId !== undefined ? { callId: `${call.id}/${request.callId}` } : {}) });
      if (decision.decision === "deny" && decision.interrupt === true) interrupted = true;
      return decision;
    };
    const child = new Subagents({ ...host, toolbox }, (event) => emitter.offer(event), depth);
    const tools: Omit<ToolCallContext, "emit" | "signal" | "redact"> = { request: { ...host.request, approve }, toolbox, allowed: host.allowed, runTask: child.run };
    try {
      const result = await runLoop({
        client: host.client,
        wire: host.wire,
        config: host.config,
        emitter,
        signal,
        base: { ...host.base, instructions: [host.base.instructions, SUBAGENT_RULES].filter((s) => s !== undefined && s !== "").join("\n\n"), tools: toolbox.specs },
        conversation,
        turn,
        queues: new RunQueues(),
        usage,
        tools,
        markDelivered: () => {},
        save: () => Promise.resolve(),
        redact: host.redact,
      });
      await emitter.drain();
      if (interrupted) return { output: "Stopped: the user denied a call of the subagent and stopped the turn.", isError: true, interrupt: true };
      return { output: result.text === "" ? "(the subagent ended without an answer)" : result.text, isError: false };
    } catch (error) {
      await emitter.settled();
      signal.throwIfAborted();
      return { output: `The subagent failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    } finally {
      await this.#countUsage(usage);
    }
  };

  async #countUsage(usage: TurnUsage): Promise<void> {
    const tokens = usage.tokens;
    if (tokens === undefined) return;
    const parent = this.#host.usage;
    // Counted once, at the run's own agent (a nested subagent's usage reaches it through its parent's).
    if (this.#depth > 0) {
      parent.add(tokens, { context: false });
      return;
    }
    await this.#emit({ type: "usage.observed", usage: parent.add(tokens, { context: false }), provenance: { provider: PROVIDER } });
  }
}
