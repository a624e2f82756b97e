/** Helpers shared by the Claude and CodeBuddy driver tests. */
import type { ApprovalDecision, DriverEvent } from "../../src/events/types.js";
import type { AgentEvent } from "../../src/events/types.js";
import type { Driver, ResolvedInput, RunRequest, RunResponse } from "../../src/driver/types.js";
import type { ApprovalRequest, UserInputAnswer, UserInputRequest } from "../../src/driver/vocabulary.js";
import { assertDriverEvent } from "../../src/events/validate.js";

export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function types(events: readonly { type: string }[]): string[] {
  return events.map((e) => e.type);
}

export function ofType<T extends AgentEvent["type"]>(events: readonly AgentEvent[], type: T): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

export interface DirectRunOptions {
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision;
  ask?: (request: UserInputRequest) => Promise<UserInputAnswer> | UserInputAnswer;
  signal?: AbortSignal;
  onEvent?: (event: DriverEvent, runId: string) => void | Promise<void>;
}

export interface DirectRunOutcome {
  runId: string;
  events: DriverEvent[];
  response?: RunResponse;
  error?: unknown;
  delivered: boolean;
  approvals: ApprovalRequest[];
}

let counter = 0;

/** Calls `driver.run` as core would, checking every emitted event's shape. */
export async function runDirect(
  driver: Driver,
  request: Partial<RunRequest> & { prompt: string; workspace: string; inputs?: ResolvedInput[] },
  options: DirectRunOptions = {},
): Promise<DirectRunOutcome> {
  const runId = `run_direct_${++counter}`;
  const events: DriverEvent[] = [];
  const approvals: ApprovalRequest[] = [];
  let delivered = false;
  const full: RunRequest = {
    runId,
    inputs: [],
    policy: {},
    resources: { tools: [], skills: [], mcp: [] },
    approve: async (r) => {
      approvals.push(r);
      return options.approve ? options.approve(r) : { decision: "deny", message: "no handler" };
    },
    ask: async (r) => (options.ask ? options.ask(r) : { declined: true }),
    markDelivered: () => {
      delivered = true;
    },
    registerSecret: () => undefined,
    ...request,
  };
  const sink = {
    emit: async (event: DriverEvent) => {
      assertDriverEvent(driver.descriptor().id, event);
      events.push(event);
      await options.onEvent?.(event, runId);
    },
  };
  const outcome: DirectRunOutcome = { runId, events, delivered: false, approvals };
  try {
    outcome.response = await driver.run(full, sink, options.signal ?? new AbortController().signal);
  } catch (error) {
    outcome.error = error;
  }
  outcome.delivered = delivered;
  return outcome;
}

