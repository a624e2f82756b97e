/** A real agent over the fake driver, a real session on it, and the slash tool over both. */
import { createAgent, type Agent } from "../../../src/agent/agent.js";
import type { Driver } from "../../../src/driver/types.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { createSlashCommands } from "../../../src/hosttools/slash/index.js";
import type { SlashCommands, SlashCommandsOptions, SlashDispatch, SlashHandled } from "../../../src/hosttools/slash/index.js";
import { createSession } from "../../../src/session/open.js";
import type { Session, SessionEvent, SessionNotice } from "../../../src/session/types.js";
import { fakeDriver, type FakeDriver, type FakeDriverOptions } from "../../../src/testing/fake-driver/driver.js";

export interface Rig extends AsyncDisposable {
  driver: FakeDriver;
  agent: Agent;
  session: Session;
  slash: SlashCommands;
}

export async function rig(
  options: { driver?: FakeDriverOptions; wrap?: (driver: FakeDriver) => Driver; slash?: Partial<SlashCommandsOptions> } = {},
): Promise<Rig> {
  const driver = fakeDriver(options.driver);
  const agent = createAgent(options.wrap ? options.wrap(driver) : driver);
  const session = await createSession(agent);
  const slash = createSlashCommands({ session, agent, collisions: "portable-first", ...options.slash });
  return {
    driver,
    agent,
    session,
    slash,
    async [Symbol.asyncDispose]() {
      await slash.session.close();
      await session.close();
      await agent.close();
    },
  };
}

/** The outcome, asserted handled (its output in the failure message otherwise). */
export function handled(outcome: SlashDispatch): SlashHandled {
  if (!outcome.handled) throw new Error(`expected the slash tool to handle the line, got ${JSON.stringify(outcome)}`);
  return outcome;
}

/** The first logged event (replayed or live) that `match` accepts. */
export async function waitFor<E extends AgentEvent | SessionNotice>(session: Session, match: (event: AgentEvent | SessionNotice) => event is E): Promise<E & Partial<SessionEvent>>;
export async function waitFor(session: Session, match: (event: AgentEvent | SessionNotice) => boolean): Promise<AgentEvent | SessionNotice>;
export async function waitFor(session: Session, match: (event: AgentEvent | SessionNotice) => boolean): Promise<AgentEvent | SessionNotice> {
  const controller = new AbortController();
  try {
    for await (const entry of session.events({ signal: controller.signal })) {
      if (match(entry.event)) return entry.event;
    }
  } finally {
    controller.abort();
  }
  throw new Error("the session's event log ended before the event came");
}

/** Every event logged so far. */
export async function logged(session: Session): Promise<(AgentEvent | SessionNotice)[]> {
  const last = session.status().lastSeq;
  const events: (AgentEvent | SessionNotice)[] = [];
  if (last === 0) return events;
  const controller = new AbortController();
  try {
    for await (const entry of session.events({ signal: controller.signal })) {
      events.push(entry.event);
      if (entry.seq >= last) break;
    }
  } finally {
    controller.abort();
  }
  return events;
}

/** Submit `text` and wait until its run has ended and the session is at rest again; resolves the run's terminal event. */
export async function runTurn(session: Session, text: string): Promise<AgentEvent> {
  const before = session.status().lastSeq;
  await session.submit(text);
  return settled(session, before);
}

/** The first terminal event logged after `after`, once the session has left `running`. */
export async function settled(session: Session, after: number): Promise<AgentEvent> {
  const controller = new AbortController();
  let terminal: AgentEvent | undefined;
  try {
    for await (const entry of session.events({ after, signal: controller.signal })) {
      const event = entry.event;
      if (event.type === "run.completed" || event.type === "run.failed" || event.type === "run.cancelled") terminal = event as AgentEvent;
      if (terminal && event.type === "session.state" && event.state !== "running") return terminal;
    }
  } finally {
    controller.abort();
  }
  throw new Error("the session's event log ended before the run did");
}
