/**
 * A driver whose runs the test ends by hand, for the session's ordering rules: each run waits in
 * flight until the test finishes it (or it is cancelled), so "while a run is in flight" is a state
 * the test holds, not a race. Built on the fake driver's descriptor, inspection and lifecycle.
 */
import { ProviderError, type ErrorCode } from "../../src/errors/index.js";
import type { Driver, EventSink, StandbyHandle } from "../../src/driver/types.js";
import type { DriverEvent, Usage } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import type { SessionEvent, SessionNotice } from "../../src/session/types.js";

export interface HeldRun {
  prompt: string;
  runId: string;
  thread?: { id: string; providerSessionId?: string; fork?: boolean };
  inputNames: string[];
  model?: string;
  effort?: string;
  /** Emit an event into the run while it is held. */
  emit(event: DriverEvent): Promise<void>;
  /** End the run: completed (with `usage`), or failed with `fail`. */
  finish(outcome?: { usage?: Usage; fail?: { code: ErrorCode; message?: string }; text?: string }): void;
  /** Settles when the driver's `run()` has returned or thrown. */
  ended: Promise<void>;
  cancelled: boolean;
}

export interface HeldDriver extends Driver {
  runs: HeldRun[];
  /** The next run to start (waits for it). */
  nextRun(): Promise<HeldRun>;
  steered: { runId: string; text: string }[];
  followedUp: { runId: string; text: string }[];
  /** Warm writers handed back (when `writers`), and how many were closed. */
  writers: { handed: number; closed: number };
}

export function heldDriver(options: { steer?: boolean; followUp?: boolean; writers?: boolean } = {}): HeldDriver {
  const inner = fakeDriver();
  const base = inner.descriptor();
  const runs: HeldRun[] = [];
  const waiting: ((run: HeldRun) => void)[] = [];
  let started = 0;
  let sessions = 0;
  const driver: HeldDriver = {
    ...inner,
    runs,
    steered: [],
    followedUp: [],
    writers: { handed: 0, closed: 0 },
    descriptor: () => ({ ...base, features: { ...base.features, resume: "native", steer: options.steer ? "native" : "unsupported" } }),
    nextRun() {
      const next = runs[started];
      if (next) {
        started++;
        return Promise.resolve(next);
      }
      return new Promise((resolve) => waiting.push((run) => {
        started++;
        resolve(run);
      }));
    },
    async run(request, sink, signal) {
      let finish!: HeldRun["finish"];
      const outcome = new Promise<Parameters<HeldRun["finish"]>[0]>((resolve) => (finish = resolve));
      let endedResolve!: () => void;
      const run: HeldRun = {
        prompt: request.prompt,
        runId: request.runId,
        inputNames: request.inputs.map((input) => input.name),
        emit: async (event) => void (await sink.emit(event)),
        finish,
        ended: new Promise<void>((resolve) => (endedResolve = resolve)),
        cancelled: false,
      };
      if (request.thread) run.thread = { ...request.thread };
      if (request.model !== undefined) run.model = request.model;
      if (request.effort !== undefined) run.effort = request.effort;
      try {
        return await holdRun(run, request, sink, signal, outcome, () => (request.thread?.providerSessionId ?? `held_session_${++sessions}`), () => {
          runs.push(run);
          const waiter = waiting.shift();
          if (waiter) waiter(run);
        }, options.writers ? () => writer(driver) : undefined);
      } finally {
        endedResolve();
      }
    },
  };
  if (options.steer) driver.steer = async (runId, text) => void driver.steered.push({ runId, text });
  if (options.followUp) driver.followUp = async (runId, text) => void driver.followedUp.push({ runId, text });
  return driver;
}

async function holdRun(
  run: HeldRun,
  request: Parameters<Driver["run"]>[0],
  sink: EventSink,
  signal: AbortSignal,
  outcome: Promise<Parameters<HeldRun["finish"]>[0]>,
  sessionId: () => string,
  announce: () => void,
  keepWarm: (() => StandbyHandle) | undefined,
) {
  const providerSessionId = request.thread ? sessionId() : undefined;
  if (providerSessionId) await sink.emit({ type: "thread.bound", providerSessionId });
  request.markDelivered();
  announce();
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => (run.cancelled = true));
  const end = await Promise.race([outcome, aborted]);
  if (end?.fail) throw new ProviderError(end.fail.message ?? end.fail.code, { code: end.fail.code, retryable: false });
  if (end?.usage) await sink.emit({ type: "usage.observed", usage: end.usage });
  const text = end?.text ?? `reply to: ${request.prompt}`;
  await sink.emit({ type: "message.completed", itemId: "m1", text });
  return {
    text,
    ...(end?.usage ? { usage: end.usage } : {}),
    ...(providerSessionId ? { providerSessionId } : {}),
    ...(keepWarm && request.keepWarm ? { writer: keepWarm() } : {}),
  };
}

function writer(driver: HeldDriver): StandbyHandle {
  driver.writers.handed++;
  let alive = true;
  return {
    isAlive: () => alive,
    close: async () => {
      if (alive) driver.writers.closed++;
      alive = false;
    },
  };
}

/** The session notices and event types of a log, in order. */
export function kinds(entries: readonly SessionEvent[]): string[] {
  return entries.map((entry) => entry.event.type);
}

/** The notices of one type. */
export function noticesOf<T extends SessionNotice["type"]>(entries: readonly SessionEvent[], type: T): Extract<SessionNotice, { type: T }>[] {
  return entries.map((entry) => entry.event).filter((event): event is Extract<SessionNotice, { type: T }> => event.type === type);
}

/** Every entry the session logged so far (replay up to the current last seq). */
export async function logOf(session: { events(options?: { after?: number; signal?: AbortSignal }): AsyncIterable<SessionEvent>; status(): { lastSeq: number } }): Promise<SessionEvent[]> {
  const last = session.status().lastSeq;
  const entries: SessionEvent[] = [];
  if (last === 0) return entries;
  const controller = new AbortController();
  for await (const entry of session.events({ signal: controller.signal })) {
    entries.push(entry);
    if (entry.seq >= last) break;
  }
  controller.abort();
  return entries;
}

/** Wait until `check` holds, polling the event loop (no wall-clock assertion: bounded by the test timeout). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  // setImmediate, not setTimeout: tests that fake timers still poll.
  while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
}

/** `open()` again while another host still owns the session (`session_owned`): a dead host's ownership runs out. */
export async function openWhenReleased<T>(open: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await open();
    } catch (error) {
      if ((error as { code?: string }).code !== "session_owned") throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Closes each in turn: an agent before the stores its threads and sessions write to. */
export async function closeInOrder(...closables: readonly { close(): Promise<void> }[]): Promise<void> {
  for (const closable of closables) await closable.close();
}
