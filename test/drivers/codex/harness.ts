/**
 * Test helpers for the Codex driver: a fake `codex app-server` executable, and a direct SPI
 * harness for what core does not route yet (threads, per-run inputs, steering).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApprovalRequest, UserInputAnswer, UserInputRequest } from "../../../src/agent/options.js";
import type { Driver, ResolvedInput, RunRequest, RunResponse } from "../../../src/driver/types.js";
import type { ApprovalDecision, DriverEvent } from "../../../src/events/types.js";
import { assertDriverEvent } from "../../../src/events/validate.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/fake-codex.mjs", import.meta.url));

/** Writes an executable `codex` into `dir` that runs the fake app-server with this Node. */
export function writeFakeCodex(dir: string): string {
  const path = join(dir, "codex");
  writeFileSync(path, `#!${process.execPath}\nimport(${JSON.stringify(FIXTURE)});\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface FakeLogEntry {
  pid: number;
  event: string;
  method?: string;
  params?: Record<string, unknown>;
  args?: string[];
  tmpdir?: string | null;
  codexHome?: string | null;
  path?: string;
  decision?: unknown;
}

export function readFakeLog(file: string): FakeLogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as FakeLogEntry);
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
      assertDriverEvent("codex", event);
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

/** The smallest valid PNG: 1×1, one red pixel. */
export const TINY_PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082",
  "hex",
);
