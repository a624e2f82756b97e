/**
 * One rule for the provider's handshake on every driver: its `initializeTimeoutMs` bounds how
 * long the provider may take to answer it (default 60 000 ms, 0 = no limit), and an elapsed limit
 * fails the same way everywhere — `ProviderError` `timeout`, retryable, before delivery, naming
 * the option.
 */
import { z } from "zod";
import { ProviderError } from "../errors/index.js";

/** Default of every driver's `initializeTimeoutMs`. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 60_000;

/** The config field every driver declares for `initializeTimeoutMs`. */
export const initializeTimeoutMsSchema = z.number().int("expected an integer").nonnegative("expected 0 or more milliseconds");

/**
 * Runs one handshake request under the limit. `request` gets a signal that aborts on `signal` or
 * when the limit elapses; the latter rejects with the timeout error instead of the abort reason.
 */
export async function withinInitializeTimeout<T>(
  provider: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  request: (signal: AbortSignal) => Promise<T>,
  handshake = "initialize",
): Promise<T> {
  if (timeoutMs === 0) return request(signal ?? new AbortController().signal);
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await request(signal ? AbortSignal.any([signal, timeout]) : timeout);
  } catch (error) {
    if (timeout.aborted && !signal?.aborted) {
      throw new ProviderError(`${provider} did not answer ${handshake} within ${timeoutMs} ms (initializeTimeoutMs)`, {
        code: "timeout",
        retryable: true,
        phase: "before_delivery",
      });
    }
    throw error;
  }
}
