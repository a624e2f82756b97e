/**
 * Input to a run in flight, from its stream (DESIGN §3; issue #18 item 3): `steer` reaches the
 * running turn at its next safe point where the driver steers natively (`Driver.steer`, with
 * `descriptor().features.steer` "native"); `followUp` queues a message the run goes on with when
 * it would otherwise end (`Driver.followUp`, supported exactly when the driver has the method).
 * Neither is ever emulated: without support the call rejects with `FeatureUnsupportedError`, and
 * once the run has ended (or is stopping) with `steer_rejected`, before the driver is asked.
 */
import type { Driver } from "../driver/types.js";
import { ConfigError, FeatureUnsupportedError, ProviderError } from "../errors/index.js";
import type { Redactor } from "../redact/redact.js";

export interface MidRunInput {
  steer(text: string): Promise<"native">;
  followUp(text: string): Promise<void>;
}

export interface MidRunTarget {
  driver: Driver;
  driverId: string;
  runId: string;
  /** The run's signal: aborted once it is cancelled or failed; a pending call is cancelled with it. */
  signal: AbortSignal;
  /** Whether the run's terminal is published. */
  ended(): boolean;
  redactor(): Redactor;
}

export function midRunInput(target: MidRunTarget): MidRunInput {
  const { driver, driverId, runId, signal } = target;

  const deliver = async (feature: string, text: unknown, send: ((runId: string, text: string, signal: AbortSignal) => Promise<void>) | undefined) => {
    if (typeof text !== "string") throw new ConfigError(`${feature} text must be a string`);
    if (send === undefined) throw new FeatureUnsupportedError(feature, driverId);
    if (target.ended() || signal.aborted) {
      throw new ProviderError(`${driverId}: the run has ended; there is no turn to ${feature}`, { code: "steer_rejected", phase: "after_delivery" });
    }
    try {
      await send.call(driver, runId, text, signal);
    } catch (error) {
      // A driver's error may quote what the provider echoed.
      throw target.redactor().redactValue(error);
    }
  };

  return {
    async steer(text) {
      const native = driver.descriptor().features.steer === "native" && typeof driver.steer === "function";
      await deliver("steer", text, native ? driver.steer : undefined);
      return "native";
    },
    async followUp(text) {
      await deliver("follow-up", text, typeof driver.followUp === "function" ? driver.followUp : undefined);
    },
  };
}
