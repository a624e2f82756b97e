/**
 * Lifecycle rules: `created → running ⇄ idle → sleeping → archived`. A session sleeps on its own
 * only after `idleSleepMs` with nothing queued and no run in flight (so no approval or question
 * waits either); input wakes it; `archived` is final.
 */
import { ConfigError } from "../errors/index.js";
import type { SessionState } from "./types.js";

/** Default `idleSleepMs`: 15 minutes. */
export const DEFAULT_IDLE_SLEEP_MS = 15 * 60_000;
/** The shortest idle timeout a session accepts (0 aside, which never sleeps on its own). */
export const MIN_IDLE_SLEEP_MS = 60_000;
/** Default `inboxCap`. */
export const DEFAULT_INBOX_CAP = 100;
/** Default `ownerTtlMs`. */
export const DEFAULT_OWNER_TTL_MS = 30_000;

export function checkIdleSleepMs(value: unknown): number {
  if (value === undefined) return DEFAULT_IDLE_SLEEP_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || (value !== 0 && value < MIN_IDLE_SLEEP_MS)) {
    throw new ConfigError(`idleSleepMs must be 0 (never sleep on its own) or an integer of at least ${MIN_IDLE_SLEEP_MS} ms`);
  }
  return value;
}

export function checkInboxCap(value: unknown): number {
  if (value === undefined) return DEFAULT_INBOX_CAP;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new ConfigError("inboxCap must be an integer of at least 1");
  return value;
}

export function checkOwnerTtlMs(value: unknown): number {
  if (value === undefined) return DEFAULT_OWNER_TTL_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1000) throw new ConfigError("ownerTtlMs must be an integer of at least 1000 ms");
  return value;
}

/**
 * The timer of the automatic sleep: armed when the session goes idle, disarmed by any activity.
 * Unreferenced, so an idle session never keeps the host process alive.
 */
export class IdleTimer {
  readonly #ms: number;
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number, fire: () => void) {
    this.#ms = ms;
    this.#fire = fire;
  }

  arm(): void {
    this.disarm();
    if (this.#ms === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#fire();
    }, this.#ms);
    this.#timer.unref?.();
  }

  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** The state a session restored from its record starts in: a run recorded in flight is gone. */
export function restoredState(state: SessionState): SessionState {
  return state === "running" ? "idle" : state;
}
