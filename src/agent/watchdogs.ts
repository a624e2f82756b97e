/**
 * The run watchdogs, the same on every driver: turn idle, a hard cap on the turn, and a limit on
 * repeated identical tool calls. They see the driver's events through the checked sink; a trip
 * ends the run through the same fatal path as the startup deadline: the run's signal aborts (the
 * driver stops the provider turn as for a cancel) and the run fails once with the watchdog's code.
 */
import { ProviderError } from "../errors/index.js";
import type { DriverEvent, ToolStarted } from "../events/types.js";
import { eventClock } from "../events/clock.js";

/** Watchdog limits of a run (`CallDefaults.watchdogs`): 0 disables one, a negative value selects its default, a fraction is rounded up. */
export interface WatchdogOptions {
  /**
   * How long the provider may stay silent (no event) during the turn before the run fails with
   * `idle_timeout`, counted from the prompt's delivery. Not counted while an approval or a question waits for the host, nor while a
   * tool call is open (started, not completed), nor while the host leaves the run's event buffer
   * full (not reading under the `block` overflow policy). Default 600000 ms (10 min); capped at 7 days.
   */
  idleMs?: number;
  /** How long the turn may last in all before it fails with `hard_cap`. Default 6 h; capped at 7 days. */
  hardCapMs?: number;
  /**
   * How many consecutive identical tool calls (same kind, name and call-defining input) trip
   * `repeat_tool_loop`; it trips at exactly this many. Default 50.
   */
  repeatToolLimit?: number;
}

export const DEFAULT_IDLE_MS = 10 * 60_000;
export const DEFAULT_HARD_CAP_MS = 6 * 3_600_000;
export const MAX_WATCHDOG_MS = 7 * 24 * 3_600_000;
export const DEFAULT_REPEAT_TOOL_LIMIT = 50;

/** Limits as a run applies them; 0 = disabled. */
export interface ResolvedWatchdogs {
  idleMs: number;
  hardCapMs: number;
  repeatToolLimit: number;
}

function bounded(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || value < 0) return fallback;
  // Rounded up: a positive fraction of a millisecond is a limit, never the 0 that disables one.
  return Math.min(Math.ceil(value), max);
}

/** Defaults filled in, negatives replaced by defaults, durations capped at 7 days (values are validated by the option schemas). */
export function resolveWatchdogs(options: WatchdogOptions | undefined): ResolvedWatchdogs {
  return {
    idleMs: bounded(options?.idleMs, DEFAULT_IDLE_MS, MAX_WATCHDOG_MS),
    hardCapMs: bounded(options?.hardCapMs, DEFAULT_HARD_CAP_MS, MAX_WATCHDOG_MS),
    repeatToolLimit: bounded(options?.repeatToolLimit, DEFAULT_REPEAT_TOOL_LIMIT, Number.MAX_SAFE_INTEGER),
  };
}

/** What identifies a tool call for the repeat limit: its kind, name and call-defining input (not its id or title). */
function callSignature(event: ToolStarted): string {
  const files = event.files?.map((file) => file.path);
  return JSON.stringify([event.kind, event.name ?? null, event.command ?? null, files ?? null, event.mcp ?? null, event.rawInput ?? null]);
}

/**
 * The watchdogs of one run: `start()` when the driver is called (the hard cap), `delivered()` when
 * the prompt may have reached the provider (the idle clock), `dispose()` once the driver has settled.
 */
export class RunWatchdogs {
  readonly #limits: ResolvedWatchdogs;
  readonly #trip: (failure: ProviderError) => void;
  /** Whether the host holds the run (it does not read a full event buffer, so the driver waits for it). */
  readonly #heldByHost: () => boolean;
  /** Approvals and questions waiting for the host. */
  #waiting = 0;
  readonly #openTools = new Set<string>();
  readonly #seenCalls = new Set<string>();
  #lastSignature: string | undefined;
  #repeats = 0;
  #lastActivity = 0;
  /**
   * The run's one timer, for the next check of both clocks: a second timer per run (and the timer
   * list Node makes and drops for each duration) costs a short run more than its watchdogs' work.
   * While the idle watchdog is on, the timer never runs longer than `idleMs`, so it is due at the
   * latest `idleMs` after any event and is never re-armed for one.
   */
  #timer: NodeJS.Timeout | undefined;
  /** How long the run's timer has run in all, the delays it fired after summed: the hard cap counts this, not the clock. */
  #elapsed = 0;
  #armedFor = 0;
  #done = false;
  /** The idle clock runs from the prompt's delivery: launching and resuming are not the provider's idleness. */
  #delivered = false;

  constructor(limits: ResolvedWatchdogs, trip: (failure: ProviderError) => void, heldByHost: () => boolean = () => false) {
    this.#limits = limits;
    this.#trip = trip;
    this.#heldByHost = heldByHost;
  }

  start(): void {
    if (this.#done || this.#timer !== undefined) return;
    this.#arm(this.#limits.idleMs);
  }

  /** The prompt may have reached the provider: the idle clock starts. */
  delivered(): void {
    if (this.#delivered) return;
    this.#delivered = true;
    this.#touch();
  }

  /** Every event the driver emits, in order. */
  observe(event: DriverEvent): void {
    if (this.#done) return;
    if (event.type === "tool.started") this.#toolStarted(event);
    else if (event.type === "tool.completed") this.#openTools.delete(event.callId);
    this.#touch();
  }

  /** An approval or question waits for the host until `pending` settles: idleness does not count meanwhile. */
  suspendWhile<T>(pending: Promise<T>): Promise<T> {
    this.#waiting += 1;
    const resume = () => {
      this.#waiting -= 1;
      this.#touch();
    };
    return pending.finally(resume);
  }

  dispose(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #toolStarted(event: ToolStarted): void {
    // A provider that re-announces one call (a duplicate id) is not repeating it.
    if (this.#seenCalls.has(event.callId)) return;
    this.#seenCalls.add(event.callId);
    this.#openTools.add(event.callId);
    const signature = callSignature(event);
    this.#repeats = signature === this.#lastSignature ? this.#repeats + 1 : 1;
    this.#lastSignature = signature;
    const limit = this.#limits.repeatToolLimit;
    if (limit > 0 && this.#repeats >= limit) {
      this.#fire("repeat_tool_loop", `the agent made the same tool call ${limit} times in a row (watchdogs.repeatToolLimit)`);
    }
  }

  #suspended(): boolean {
    return this.#waiting > 0 || this.#openTools.size > 0;
  }

  /** Activity: the idle clock restarts. An armed timer is due soon enough; without one (the run not started yet, or only the idle watchdog on and no check pending), one is armed. */
  #touch(): void {
    this.#lastActivity = eventClock();
    if (this.#timer === undefined && !this.#done && this.#delivered && this.#limits.idleMs !== 0) this.#arm(this.#limits.idleMs);
  }

  /**
   * Arms the timer for the nearer check: the hard cap's end, or `idleIn` while the idle watchdog
   * is on (even while it is suspended or before delivery, so that an event never needs a re-arm).
   */
  #arm(idleIn: number): void {
    const { idleMs, hardCapMs } = this.#limits;
    let delay = hardCapMs > 0 ? hardCapMs - this.#elapsed : Number.POSITIVE_INFINITY;
    if (idleMs > 0 && idleIn < delay) delay = idleIn;
    if (delay === Number.POSITIVE_INFINITY) return;
    this.#armedFor = delay;
    this.#timer = setTimeout(this.#check, delay);
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    this.#elapsed += this.#armedFor;
    if (this.#done) return;
    const { idleMs, hardCapMs } = this.#limits;
    if (hardCapMs > 0 && this.#elapsed >= hardCapMs) return this.#fire("hard_cap", `the run exceeded its hard cap of ${hardCapMs} ms (watchdogs.hardCapMs)`);
    let idleIn = idleMs;
    if (idleMs > 0 && this.#delivered && !this.#suspended()) {
      // A host that stops reading pauses the driver: that silence is the host's, not the provider's.
      if (this.#heldByHost()) this.#lastActivity = Date.now();
      const quietFor = Date.now() - this.#lastActivity;
      if (quietFor >= idleMs) return this.#fire("idle_timeout", `the provider sent nothing for ${idleMs} ms (watchdogs.idleMs)`);
      idleIn = idleMs - quietFor;
    }
    this.#arm(idleIn);
  };

  #fire(code: "idle_timeout" | "hard_cap" | "repeat_tool_loop", message: string): void {
    if (this.#done) return;
    this.dispose();
    this.#trip(new ProviderError(message, { code, retryable: false }));
  }
}
