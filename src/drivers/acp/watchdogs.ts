/**
 * The watchdogs of one ACP turn: an idle timeout (suspended while a tool runs or a permission
 * waits), a hard cap on the turn, and a limit on repeated identical tool calls. A watchdog that
 * trips resolves {@link TurnWatchdogs.tripped}; the turn then cancels as for a user cancel and
 * fails with the watchdog's code.
 */
import type { ResolvedWatchdogs } from "./config.js";

export type WatchdogCode = "idle_timeout" | "hard_cap" | "repeat_tool_loop";

export interface WatchdogTrip {
  code: WatchdogCode;
  message: string;
}

export class TurnWatchdogs {
  readonly #limits: ResolvedWatchdogs;
  /** Whether the agent is busy on the host's side (a tool running, a permission waiting): idleness does not count then. */
  readonly #busy: () => boolean;
  readonly #signatures = new Map<string, number>();
  #lastActivity = Date.now();
  #trip!: (trip: WatchdogTrip) => void;
  #hardCapTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  /** Resolves with the first watchdog that tripped; never rejects. */
  readonly tripped: Promise<WatchdogTrip>;

  constructor(limits: ResolvedWatchdogs, busy: () => boolean) {
    this.#limits = limits;
    this.#busy = busy;
    let done = false;
    this.tripped = new Promise((resolve) => {
      this.#trip = (trip) => {
        if (done) return;
        done = true;
        resolve(trip);
      };
    });
  }

  /** The agent did something: the idle clock restarts. */
  touch(): void {
    this.#lastActivity = Date.now();
  }

  /** A tool call reached its final input; too many identical ones trip `repeat_tool_loop`. */
  toolSignature(signature: string): void {
    const seen = (this.#signatures.get(signature) ?? 0) + 1;
    this.#signatures.set(signature, seen);
    const limit = this.#limits.repeatToolLimit;
    if (limit > 0 && seen > limit) this.#trip({ code: "repeat_tool_loop", message: `the agent repeated the same tool call more than ${limit} times` });
  }

  /** Starts the hard cap and the idle clock (from the prompt's delivery). */
  start(): void {
    const { hardCapMs, idleMs } = this.#limits;
    this.touch();
    if (hardCapMs > 0) {
      this.#hardCapTimer = setTimeout(() => this.#trip({ code: "hard_cap", message: `the run exceeded its hard cap of ${hardCapMs} ms` }), hardCapMs);
      this.#hardCapTimer.unref();
    }
    if (idleMs > 0) {
      const tick = Math.max(10, Math.min(1000, Math.floor(idleMs / 4)));
      this.#idleTimer = setInterval(() => {
        if (this.#busy()) return this.touch();
        if (Date.now() - this.#lastActivity >= idleMs) this.#trip({ code: "idle_timeout", message: `the agent was idle for more than ${idleMs} ms` });
      }, tick);
      this.#idleTimer.unref();
    }
  }

  stop(): void {
    if (this.#hardCapTimer) clearTimeout(this.#hardCapTimer);
    if (this.#idleTimer) clearInterval(this.#idleTimer);
  }
}
