/**
 * One randomized lifecycle: start a run, and at a chosen stage break out of the stream, abort its
 * signal, close the agent or SIGKILL the provider's process group; then check what must hold after
 * every ending. Host signals need a host process of their own and live in host-signal.ts.
 */
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import fc from "fast-check";
import { expect } from "vitest";

import type { Agent, AgentEvent, ApprovalDecision, CallOptions, RunStream } from "../../src/index.js";
import { groupMembers } from "./processes.js";

export const STAGES = ["before_start", "after_first_delta", "during_approval", "after_completion", "during_retirement"] as const;
export type Stage = (typeof STAGES)[number];
export const ACTIONS = ["break", "abort", "close", "crash"] as const;
export type Action = (typeof ACTIONS)[number];

export interface LifecyclePlan {
  stage: Stage;
  action: Action;
  /** Pass a per-run input, so a run directory exists to be removed. */
  withInput: boolean;
}

export function planOf(stages: readonly Stage[], actions: readonly Action[] = ACTIONS): fc.Arbitrary<LifecyclePlan> {
  return fc.record({ stage: fc.constantFrom(...stages), action: fc.constantFrom(...actions), withInput: fc.boolean() });
}

/** What a target provides for one lifecycle. */
export interface LifecycleSetup {
  agent: Agent;
  /** Pids of the provider processes live now (each leads its own process group). */
  livePids(): number[];
  prompt: string;
  options?: CallOptions;
}

/** What one lifecycle observed, for the results table. */
export interface LifecycleOutcome {
  /** `completed`, `cancelled`, a failure code, or `none` when the consumer left before the terminal. */
  outcome: string;
  /** The stage was reached before the run ended (else the action came after the end). */
  reached: boolean;
}

/** Run directories of per-run inputs currently in the temporary directory. */
export function inputDirectories(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("agent-adaptor-inputs-"));
}

const TERMINALS = new Set(["run.completed", "run.failed", "run.cancelled"]);
const SETTLE_MS = 30_000;
/** How long after the completion frame the `during_retirement` action comes. */
const RETIREMENT_DELAY_MS = 50;

function within<T>(promise: Promise<T>, what: string, ms = SETTLE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]);
}

/** An approval handler that answers only once the lifecycle lets it (or the run's signal ends it). */
export class ApprovalGate {
  #open = false;
  #waiters: (() => void)[] = [];
  handler = (_request: unknown, signal: AbortSignal): Promise<ApprovalDecision> =>
    new Promise((resolve) => {
      const allow = () => resolve({ decision: "allow" });
      if (this.#open || signal.aborted) return allow();
      this.#waiters.push(allow);
      signal.addEventListener("abort", allow, { once: true });
    });
  open(): void {
    this.#open = true;
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}

/** SIGKILLs the process group of every live provider process; waits a little for one to appear. */
async function crash(livePids: () => number[]): Promise<void> {
  for (let i = 0; i < 100 && livePids().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  for (const pid of livePids()) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/**
 * Runs one lifecycle and asserts: exactly one terminal and nothing after it (or, after a break,
 * nothing more to read), `result` settles the way the terminal says, no process of any group the
 * provider used is left once the agent closed, no run directory is left, and `canary` appears in
 * no event, error or raw record.
 */
export async function runLifecycle(plan: LifecyclePlan, setup: LifecycleSetup, gate: ApprovalGate, canary: string): Promise<LifecycleOutcome> {
  const { agent } = setup;
  const pgids = new Set<number>();
  const sample = () => setup.livePids().forEach((pid) => pgids.add(pid));
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  let closing: Promise<void> | undefined;
  let reached = false;
  let broke = false;

  const act = async (): Promise<void> => {
    reached = true;
    sample();
    if (plan.stage === "during_approval") queueMicrotask(() => gate.open());
    switch (plan.action) {
      case "break":
        broke = true;
        return;
      case "abort":
        controller.abort(new Error("chaos: aborted"));
        return;
      case "close":
        closing = agent.close();
        return;
      case "crash":
        await crash(setup.livePids);
        return;
    }
  };

  const stream: RunStream = agent.stream(setup.prompt, { ...setup.options, signal: controller.signal });
  const iterator = stream[Symbol.asyncIterator]();
  if (plan.stage === "before_start") await act();
  let terminalSeen = false;
  while (!broke) {
    const next = await within(iterator.next(), "the stream");
    if (next.done) break;
    const event = next.value;
    sample();
    expect(terminalSeen, `an event (${event.type}) after the terminal`).toBe(false);
    events.push(event);
    if (TERMINALS.has(event.type)) terminalSeen = true;
    if (event.type === "approval.requested" && plan.stage !== "during_approval") gate.open();
    const atStage =
      !reached &&
      ((plan.stage === "after_first_delta" && event.type === "message.delta") ||
        (plan.stage === "during_approval" && event.type === "approval.requested") ||
        (plan.stage === "after_completion" && event.type === "message.completed"));
    if (atStage) await act();
    // Retirement: the provider sent its answer and the driver is finishing the turn (not pulled yet).
    if (!reached && plan.stage === "during_retirement" && event.type === "message.completed") {
      await new Promise((resolve) => setTimeout(resolve, RETIREMENT_DELAY_MS));
      await act();
    }
  }
  if (broke) {
    await within(Promise.resolve(iterator.return?.()), "breaking out of the stream");
    const after = await iterator.next();
    expect(after.done, `events after a break: ${JSON.stringify(after.value)?.slice(0, 200)}`).toBe(true);
  } else {
    expect(events.filter((e) => TERMINALS.has(e.type)), "terminal events").toHaveLength(1);
    expect(TERMINALS.has(events.at(-1)!.type), "the last event is the terminal").toBe(true);
  }
  if (!reached) await act();

  let raw = "";
  let error: unknown;
  try {
    raw = JSON.stringify((await within(stream.result, "result")).raw());
  } catch (err) {
    error = err;
  }
  const terminal = events.find((e) => TERMINALS.has(e.type));
  if (terminal?.type === "run.completed") expect(error).toBeUndefined();
  if (terminal?.type === "run.failed") expect((error as { code?: string } | undefined)?.code).toBe(terminal.error.code);
  if (terminal?.type === "run.cancelled") expect((error as { code?: string } | undefined)?.code).toBe("run_cancelled");

  await within(closing ?? agent.close(), "agent.close()");
  await within(agent.close(), "a second agent.close()");
  sample();
  expect(setup.livePids(), "live provider processes after close").toEqual([]);
  expect(groupMembers([...pgids]), "members of the provider's process groups after close").toEqual([]);
  expect(inputDirectories(), "run directories after close").toEqual([]);
  const everything = JSON.stringify(events) + raw + String(error) + JSON.stringify(error ?? null);
  expect(everything.includes(canary), "the canary key in an event, error or raw record").toBe(false);

  const outcome = terminal?.type === "run.completed" ? "completed" : terminal?.type === "run.cancelled" ? "cancelled" : terminal?.type === "run.failed" ? terminal.error.code : "none";
  return { outcome, reached };
}
