/** Helpers shared by the Claude and CodeBuddy driver tests. */
import type { ApprovalDecision, DriverEvent } from "../../src/events/types.js";
import type { AgentEvent } from "../../src/events/types.js";
import type { Driver, ResolvedInput, RunRequest, RunResponse } from "../../src/driver/types.js";
import type { ApprovalRequest, UserInputAnswer, UserInputRequest } from "../../src/agent/options.js";

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

/** Calls `driver.run` directly (for what core does not pass yet: inputs, threads) and records what it emits. */
export async function runDirect(
  driver: Driver,
  partial: Partial<RunRequest> & { prompt: string; workspace: string },
  options: { approve?: (r: ApprovalRequest) => Promise<ApprovalDecision>; ask?: (r: UserInputRequest) => Promise<UserInputAnswer>; signal?: AbortSignal } = {},
): Promise<{ events: DriverEvent[]; response?: RunResponse; error?: unknown; delivered: boolean }> {
  const events: DriverEvent[] = [];
  let delivered = false;
  const request: RunRequest = {
    runId: `run_direct_${Math.random().toString(36).slice(2)}`,
    inputs: [] as ResolvedInput[],
    policy: {},
    resources: { tools: [], skills: [], mcp: [] },
    approve: options.approve ?? (async () => ({ decision: "deny", message: "no handler in this test" })),
    ask: options.ask ?? (async () => ({ declined: true })),
    markDelivered: () => {
      delivered = true;
    },
    registerSecret: () => undefined,
    ...partial,
  };
  try {
    const response = await driver.run(request, { emit: async (e) => void events.push(e) }, options.signal ?? new AbortController().signal);
    return { events, response, delivered };
  } catch (error) {
    return { events, error, delivered };
  }
}
