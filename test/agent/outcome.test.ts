/**
 * The outcome decision as a table (issue #13 item 3): what was observed when the driver's `run()`
 * settled → the status a thread checkpoint records and the terminal core publishes. Pure: no
 * driver, no process, no timeline.
 */
import { describe, expect, it } from "vitest";
import { decideOutcome, runStatus, type RunObservation, type RunOutcome, type RunStatus } from "../../src/agent/outcome.js";
import { ConfigError, DriverContractError, ProviderError, RunCancelledError, ThreadBusyError } from "../../src/errors/index.js";

const contract = new DriverContractError("fake", "emitted message.delta after its terminal event");
const leaseLost = new ProviderError("the lease was lost", { code: "provider_unreachable", retryable: true, phase: "after_delivery" });
const crash = new ProviderError("the provider exited", { code: "provider_exited", phase: "after_delivery" });
const busy = new ThreadBusyError();
const badModel = new ConfigError("model is not offered");

const base: RunObservation = { driverId: "fake", delivered: false, aborted: false, threadRefused: false };
const answered = { text: "done" };

interface Case {
  name: string;
  seen: Partial<RunObservation>;
  cancelReason?: string;
  status: RunStatus;
  outcome: RunOutcome;
}

const cases: Case[] = [
  {
    name: "a driver that resolved with a text completes",
    seen: { delivered: true, response: answered },
    status: "completed",
    outcome: { kind: "completed", response: answered },
  },
  {
    name: "an announced run.completed followed by a resolved text completes",
    seen: { delivered: true, announced: { type: "run.completed" }, response: answered },
    status: "completed",
    outcome: { kind: "completed", response: answered },
  },
  {
    name: "a cancel after the driver announced run.completed does not rewrite the run",
    seen: { delivered: true, aborted: true, announced: { type: "run.completed" }, response: answered },
    cancelReason: "late",
    status: "completed",
    outcome: { kind: "completed", response: answered },
  },
  {
    name: "a cancel after run.completed, with run() then throwing, is a cancel",
    seen: { delivered: true, aborted: true, announced: { type: "run.completed" }, thrown: new RunCancelledError() },
    cancelReason: "late",
    status: "cancelled",
    outcome: { kind: "cancelled", reason: "late" },
  },
  {
    name: "a cancel before any terminal is a cancel with the caller's reason",
    seen: { delivered: true, aborted: true, thrown: new RunCancelledError() },
    cancelReason: "stop",
    status: "cancelled",
    outcome: { kind: "cancelled", reason: "stop" },
  },
  {
    name: "a cancel before delivery is a cancel, not a refusal",
    seen: { aborted: true, thrown: badModel },
    status: "cancelled",
    outcome: { kind: "cancelled" },
  },
  {
    name: "a driver that announced run.cancelled is cancelled with its own reason",
    seen: { delivered: true, announced: { type: "run.cancelled", reason: "the provider stopped" }, response: answered },
    status: "cancelled",
    outcome: { kind: "cancelled", reason: "the provider stopped" },
  },
  {
    name: "the caller's reason wins over the driver's announced reason",
    seen: { delivered: true, aborted: true, announced: { type: "run.cancelled", reason: "driver" } },
    cancelReason: "caller",
    status: "cancelled",
    outcome: { kind: "cancelled", reason: "caller" },
  },
  {
    name: "a contract violation fails the run even when cancelled",
    seen: { delivered: true, aborted: true, contractError: contract, thrown: contract },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "driver_contract", message: contract.message, phase: "after_delivery", retryable: false }, cause: contract },
  },
  {
    name: "a core-side failure (lost lease, startup deadline) wins over a contract violation",
    seen: { delivered: true, aborted: true, fatal: leaseLost, contractError: contract },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "provider_unreachable", message: leaseLost.message, phase: "after_delivery", retryable: true }, cause: leaseLost },
  },
  {
    name: "a core-side failure before delivery keeps the before_delivery phase",
    seen: { aborted: true, fatal: leaseLost },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "provider_unreachable", message: leaseLost.message, phase: "before_delivery", retryable: true }, cause: leaseLost },
  },
  {
    name: "a thread that refused the run rejects with its own error",
    seen: { threadRefused: true, thrown: busy },
    status: "failed",
    outcome: { kind: "refused", error: busy },
  },
  {
    name: "a thread that failed with a foreign error fails before delivery",
    seen: { threadRefused: true, thrown: new Error("store down") },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "provider_error", message: "store down", phase: "before_delivery", retryable: false }, cause: new Error("store down") },
  },
  {
    name: "a refusal before delivery rejects with the error itself",
    seen: { thrown: badModel },
    status: "failed",
    outcome: { kind: "refused", error: badModel },
  },
  {
    name: "the same error after delivery is a failure of the run",
    seen: { delivered: true, thrown: badModel },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "config_invalid", message: badModel.message, phase: "after_delivery", retryable: false }, cause: badModel },
  },
  {
    name: "a provider failure keeps its code and retryability",
    seen: { delivered: true, thrown: crash },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "provider_exited", message: crash.message, phase: "after_delivery", retryable: false }, cause: crash },
  },
  {
    name: "an announced run.failed after delivery keeps the driver's phase",
    seen: { delivered: true, announced: { type: "run.failed", error: { code: "provider_error", message: "quota", phase: "after_delivery", retryable: true } }, response: answered },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "provider_error", message: "quota", phase: "after_delivery", retryable: true } },
  },
  {
    name: "an announced run.failed without delivery is before_delivery whatever the driver said",
    seen: { announced: { type: "run.failed", error: { code: "provider_error", message: "quota", phase: "after_delivery", retryable: true } }, response: answered },
    status: "failed",
    outcome: { kind: "failed", failure: { code: "provider_error", message: "quota", phase: "before_delivery", retryable: true } },
  },
  {
    name: "an announced run.failed and then a cancel publishes the cancel (the checkpoint says failed)",
    seen: { delivered: true, aborted: true, announced: { type: "run.failed", error: { code: "provider_error", message: "x", phase: "after_delivery", retryable: false } } },
    status: "failed",
    outcome: { kind: "cancelled" },
  },
  {
    name: "a driver that resolved without a text breaks the contract",
    seen: { delivered: true, response: { text: 42 } as unknown as RunObservation["response"] },
    status: "completed",
    outcome: { kind: "failed", failure: { code: "driver_contract", message: "driver fake: run() resolved without a text result", phase: "after_delivery", retryable: false } },
  },
  {
    name: "a driver that resolved with nothing breaks the contract",
    seen: {},
    status: "completed",
    outcome: { kind: "failed", failure: { code: "driver_contract", message: "driver fake: run() resolved without a text result", phase: "before_delivery", retryable: false } },
  },
];

describe("the outcome decision", () => {
  it.each(cases)("$name", ({ seen, cancelReason, status, outcome }) => {
    const observation: RunObservation = { ...base, ...seen };
    expect(runStatus(observation)).toBe(status);
    expect(decideOutcome(observation, cancelReason)).toEqual(outcome);
  });
});
