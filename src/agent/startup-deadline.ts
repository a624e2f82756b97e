/**
 * The startup deadline. A provider CLI that cannot reach its model endpoint retries with backoff
 * instead of failing: measured against a closed port on 127.0.0.1, Codex 0.171.0 kept
 * "Reconnecting... waiting for network" for more than 5 minutes and Claude Code 2.1.332 retried
 * 10 times over about 3 minutes. Drivers relay those retries as notices. From the first one seen
 * before the provider shows any progress, the run gets `startupTimeoutMs`; if it still has shown
 * none by then, the run fails with `provider_unreachable` (retryable) instead of hanging.
 */
import { ProviderError } from "../errors/index.js";
import type { DriverEvent } from "../events/types.js";

/** Default of `AgentOptions.startupTimeoutMs`. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;

/** Notice codes with which drivers relay the provider's own "retrying the model request". */
const PROVIDER_RETRY_NOTICES: ReadonlySet<string> = new Set(["provider_retry", "api_retry"]);

/** Events that say nothing about whether the model answered. */
const NOT_PROGRESS: ReadonlySet<string> = new Set(["thread.bound", "notice", "usage.observed"]);

export interface StartupDeadline {
  /** Sees every event the driver emits, in order. */
  observe(event: DriverEvent): void;
  dispose(): void;
}

/** `onExpire` receives the failure to end the run with; `timeoutMs` 0 disables the deadline. */
export function startupDeadline(timeoutMs: number, onExpire: (failure: ProviderError) => void): StartupDeadline {
  let timer: NodeJS.Timeout | undefined;
  let settled = timeoutMs === 0;
  const dispose = () => {
    settled = true;
    clearTimeout(timer);
  };
  return {
    observe(event) {
      if (settled) return;
      if (event.type === "notice" && PROVIDER_RETRY_NOTICES.has(event.code)) {
        timer ??= setTimeout(() => {
          dispose();
          onExpire(
            new ProviderError(
              `the provider kept retrying its model endpoint without an answer for ${timeoutMs} ms (startupTimeoutMs); check the endpoint, the network and any proxy`,
              { code: "provider_unreachable", retryable: true, phase: "after_delivery" },
            ),
          );
        }, timeoutMs);
        return;
      }
      if (!NOT_PROGRESS.has(event.type)) dispose();
    },
    dispose,
  };
}
