/**
 * The gate/queue state machine, model-based (issue #18 "Must show"): fast-check generates random
 * sequences of submit (waking or context), steer, follow-up, interrupt, interruptAndHold, pause,
 * resume (continue / steer / abandon), a run ending and a host crash (the record as stored at that
 * instant reopened by a new host), runs them against a real session over a driver whose runs the
 * test ends, and after every step checks the session against a small model and these invariants:
 *
 * - at most one run is in flight, and it is the one the model admitted, with exactly its prompts;
 * - no run is admitted while the gate is closed; only `resume` opens it;
 * - every prompt is admitted at most once, dropped only with a notice, never both; nothing queued
 *   is lost (queued ∪ in flight ∪ admitted ∪ dropped covers every prompt id ever returned);
 * - a run in flight at a crash is recorded as `host_restart` and never started again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAgent, memorySessionStore, memoryThreadStore, type Agent } from "../../src/index.js";
import { createSession, openSession } from "../../src/session/index.js";
import type { Session, SessionEvent, SessionStore } from "../../src/session/types.js";
import type { ThreadStore } from "../../src/thread/store.js";
import { heldDriver, type HeldDriver, type HeldRun } from "./harness.js";

type Step =
  | { kind: "submit"; wake: boolean }
  | { kind: "steer" }
  | { kind: "followUp" }
  | { kind: "interrupt" }
  | { kind: "hold" }
  | { kind: "pause" }
  | { kind: "resume"; mode: "continue" | "steer" | "abandon"; message: boolean }
  | { kind: "finish" }
  | { kind: "crash" };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.boolean().map((wake): Step => ({ kind: "submit", wake })) },
  fc.constant<Step>({ kind: "steer" }),
  fc.constant<Step>({ kind: "followUp" }),
  fc.constant<Step>({ kind: "interrupt" }),
  fc.constant<Step>({ kind: "hold" }),
  fc.constant<Step>({ kind: "pause" }),
  { weight: 2, arbitrary: fc.record({ mode: fc.constantFrom("continue" as const, "steer" as const, "abandon" as const), message: fc.boolean() }).map(({ mode, message }): Step => ({ kind: "resume", mode, message: mode === "steer" ? true : message })) },
  { weight: 4, arbitrary: fc.constant<Step>({ kind: "finish" }) },
  fc.constant<Step>({ kind: "crash" }),
);

interface Entry {
  id: string;
  waking: boolean;
}

/** The model: the gate, the queue, the run in flight, and what became of every prompt. */
class Model {
  gateOpen = true;
  queue: Entry[] = [];
  inFlight: string[] | undefined;
  readonly admitted = new Set<string>();
  readonly dropped = new Set<string>();
  readonly all = new Set<string>();

  add(id: string, waking: boolean, front = false): void {
    this.all.add(id);
    if (front) this.queue.unshift({ id, waking });
    else this.queue.push({ id, waking });
  }

  /** The admission rule. */
  pump(): void {
    if (this.inFlight || !this.gateOpen || !this.queue.some((entry) => entry.waking)) return;
    this.inFlight = this.queue.map((entry) => entry.id);
    for (const id of this.inFlight) this.admitted.add(id);
    this.queue = [];
  }
}

/** One host: an agent on the shared thread store, its driver and the session it drives. */
interface Host {
  agent: Agent;
  driver: HeldDriver;
  session: Session;
  store: SessionStore;
  ended: Set<HeldRun>;
}

async function newHost(threads: ThreadStore, open: (agent: Agent) => Promise<{ session: Session; store: SessionStore }>): Promise<Host> {
  const driver = heldDriver();
  const agent = createAgent(driver, { threadStore: threads, threadWriterIdleMs: 0 });
  const { session, store } = await open(agent);
  const host: Host = { agent, driver, session, store, ended: new Set() };
  return host;
}

function current(host: Host): HeldRun | undefined {
  return host.driver.runs.find((run) => !host.ended.has(run));
}

async function ticks(n = 8): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Wait until the session matches the model's in-flight state and its driver runs what it admitted. */
async function settle(host: Host, model: Model): Promise<void> {
  for (let round = 0; ; round++) {
    await ticks();
    const inFlight = host.session.status().inFlight;
    const run = current(host);
    if (model.inFlight === undefined ? inFlight === undefined && run === undefined : inFlight !== undefined && run !== undefined) return;
    // Liveness, not timing: a session that never reaches the model's state fails with both states.
    if (round > 5000) throw new Error(`never settled: model ${JSON.stringify({ gate: model.gateOpen, queue: model.queue, inFlight: model.inFlight })}, session ${JSON.stringify(host.session.status())}, driver run ${run ? "held" : "none"}`);
  }
}

async function endRun(host: Host, end: (run: HeldRun) => void): Promise<void> {
  const run = current(host);
  if (!run) return;
  end(run);
  await run.ended;
  host.ended.add(run);
}

async function log(session: Session): Promise<SessionEvent[]> {
  const last = session.status().lastSeq;
  const out: SessionEvent[] = [];
  if (last === 0) return out;
  const controller = new AbortController();
  for await (const entry of session.events({ signal: controller.signal })) {
    out.push(entry);
    if (entry.seq >= last) break;
  }
  controller.abort();
  return out;
}

// long-function: one step of the model run, a switch over the step kinds kept together for reading
async function apply(step: Step, host: Host, model: Model, crash: () => Promise<Host>): Promise<Host> {
  const s = host.session;
  switch (step.kind) {
    case "submit": {
      const { promptId } = await s.submit(`p${model.all.size}`, { wake: step.wake });
      model.add(promptId, step.wake);
      break;
    }
    case "steer":
    case "followUp": {
      const before = new Set(s.status().queued);
      if (step.kind === "steer") await s.steer("steer");
      else await s.followUp("follow up");
      const added = s.status().queued.filter((id) => !before.has(id));
      // Queued (no native channel on this driver): it may have been admitted at once.
      const id = added[0] ?? s.status().inFlight?.promptIds.find((promptId) => !model.all.has(promptId));
      expect(id).toBeDefined();
      model.add(id!, true);
      break;
    }
    case "interrupt":
      await s.interrupt();
      await endRun(host, () => undefined);
      model.inFlight = undefined;
      break;
    case "hold":
      await s.interruptAndHold("hold");
      model.gateOpen = false;
      await endRun(host, () => undefined);
      model.inFlight = undefined;
      break;
    case "pause":
      await s.pause("pause");
      model.gateOpen = false;
      break;
    case "resume": {
      if (step.mode === "abandon") {
        for (const entry of model.queue) model.dropped.add(entry.id);
        model.queue = [];
      }
      const before = new Set([...s.status().queued, ...model.all]);
      await s.resume({ mode: step.mode, ...(step.message ? { message: "resumed" } : {}) });
      if (step.message) {
        const id = [...s.status().queued, ...(s.status().inFlight?.promptIds ?? [])].find((promptId) => !before.has(promptId));
        expect(id).toBeDefined();
        model.add(id!, true, step.mode === "steer");
      }
      model.gateOpen = true;
      break;
    }
    case "finish":
      await endRun(host, (run) => run.finish());
      model.inFlight = undefined;
      break;
    case "crash": {
      const next = await crash();
      model.inFlight = undefined; // host_restart: never replayed
      model.pump();
      await settle(next, model);
      return next;
    }
  }
  model.pump();
  await settle(host, model);
  return host;
}

function check(host: Host, model: Model, entries: SessionEvent[]): void {
  const status = host.session.status();
  expect(status.gate.open).toBe(model.gateOpen);
  expect(new Set(status.queued)).toEqual(new Set(model.queue.map((entry) => entry.id)));
  expect(status.inFlight ? new Set(status.inFlight.promptIds) : undefined).toEqual(model.inFlight ? new Set(model.inFlight) : undefined);
  expect(host.driver.runs.filter((run) => !host.ended.has(run)).length).toBeLessThanOrEqual(1);
  // Admitted at most once, and never while the gate was closed.
  const seen = new Set<string>();
  let open = true;
  for (const { event } of entries) {
    if (event.type === "session.gate") open = event.gate.open;
    if (event.type === "session.run_admitted") {
      expect(open).toBe(true);
      for (const id of event.promptIds) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
    if (event.type === "session.prompt_dropped") expect(model.dropped.has(event.promptId)).toBe(true);
  }
  // Nothing lost: every prompt is queued, in flight, admitted before, or dropped with a notice.
  for (const id of model.all) {
    expect(model.queue.some((entry) => entry.id === id) || model.admitted.has(id) || model.dropped.has(id)).toBe(true);
  }
}

describe("session gate and queue (model-based)", () => {
  it("random submit/steer/follow-up/interrupt/hold/pause/resume/finish/crash sequences never break the invariants", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 14 }), async (steps) => {
        const threads = memoryThreadStore();
        const id = `prop-${Math.random().toString(36).slice(2)}`;
        const model = new Model();
        let host = await newHost(threads, async (agent) => {
          const store = memorySessionStore();
          return { store, session: await createSession(agent, { id, store, idleSleepMs: 0 }) };
        });
        // All logged events across hosts (each host's store starts from the record it reopened).
        const history: SessionEvent[] = [];
        const crash = async (): Promise<Host> => {
          const record = await host.store.get(id);
          const hadRun = record?.inFlight?.runId;
          history.push(...(await log(host.session)));
          await host.session.close().catch(() => undefined);
          await host.agent.close();
          const next = await newHost(threads, async (agent) => {
            const store = memorySessionStore();
            const { createdAt: _c, updatedAt: _u, owner: _o, ...stored } = record!;
            await store.create(stored);
            return { store, session: await openSession(agent, id, { store }) };
          });
          const restarted = (await log(next.session)).filter((entry) => entry.event.type === "session.run_interrupted");
          expect(restarted.map((entry) => (entry.event as { runId: string }).runId)).toEqual(hadRun ? [hadRun] : []);
          return next;
        };
        try {
          for (const step of steps) {
            host = await apply(step, host, model, crash);
            check(host, model, [...history, ...(await log(host.session))]);
          }
        } finally {
          await host.session.close().catch(() => undefined);
          await host.agent.close();
        }
      }),
      { numRuns: Number(process.env.SESSION_PROPERTY_RUNS ?? 60) },
    );
  }, 240_000);
});
