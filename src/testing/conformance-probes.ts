/**
 * What the conformance kit observes from outside a driver: timelines, the files a provider leaves
 * behind, a marker MCP server, and every surface a secret could leak through (a run's events,
 * result and errors, and what the thread store keeps of a thread).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent } from "../agent/agent.js";
import type { RunStream } from "../agent/run-stream.js";
import type { Thread } from "../agent/thread.js";
import type { McpServerConfig } from "../driver/vocabulary.js";
import type { ThreadStore } from "../thread/store.js";
import type { Driver } from "../driver/types.js";
import { AdaptorError } from "../errors/index.js";
import type { AgentEvent } from "../events/types.js";
import { assertWireEvents } from "./wire-events.js";

export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function assertTimeline(events: AgentEvent[], runId: string): void {
  assert.ok(events.length >= 2, "a run has at least run.started and a terminal event");
  assert.equal(events[0]!.type, "run.started", "the first event is run.started");
  events.forEach((event, index) => {
    assert.equal(event.seq, index, "seq starts at 0 and increases by one");
    assert.equal(event.runId, runId, "every event carries the run id");
  });
  const terminals = events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled");
  assert.equal(terminals.length, 1, "exactly one terminal event");
  assert.equal(terminals[0], events[events.length - 1], "the terminal event is last");
  assertWireEvents(events);
}

export function countingDriver(driver: Driver): { driver: Driver; calls: Record<string, number> } {
  const calls: Record<string, number> = { inspect: 0, prepare: 0, run: 0 };
  const wrapped: Driver = {
    descriptor: () => driver.descriptor(),
    validateConfig: () => driver.validateConfig(),
    inspect: (request, signal) => (calls.inspect!++, driver.inspect(request, signal)),
    prepare: (request, signal) => (calls.prepare!++, driver.prepare(request, signal)),
    run: (request, sink, signal) => (calls.run!++, driver.run(request, sink, signal)),
    close: () => driver.close(),
  };
  if (driver.fingerprint) wrapped.fingerprint = () => driver.fingerprint!();
  if (driver.compatibility) wrapped.compatibility = () => driver.compatibility!();
  return { driver: wrapped, calls };
}

/** Writes `SENTINEL` into every object and array of `value`, in place. */
export const SENTINEL = "conformance-kit-sentinel";
export function plantSentinels(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) plantSentinels(item);
    value.push(SENTINEL);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) plantSentinels(item);
    (value as Record<string, unknown>)[SENTINEL] = SENTINEL;
  }
}

/** A deep copy without the members that legitimately differ between two live calls. */
export function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (key !== "observedAt" && key !== "durationMs") out[key] = withoutTimings(item);
  return out;
}

/** Every file (relative path) under `dirs`; a directory that does not exist holds none. */
export async function filesUnder(dirs: readonly string[]): Promise<Set<string>> {
  const files = new Set<string>();
  for (const dir of dirs) {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) if (!entry.isDirectory()) files.add(join(entry.parentPath, entry.name));
  }
  return files;
}

export function added(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((file) => !before.has(file)).sort();
}

/** A stdio MCP server whose only act is to leave a marker file: started ⇔ the marker exists. */
export async function markerMcpServer(): Promise<{ server: McpServerConfig; started(): boolean; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "agent-adaptor-conformance-mcp-"));
  const marker = join(dir, "started");
  return {
    server: { name: "conformance-marker", command: process.execPath, args: ["-e", "require('node:fs').writeFileSync(process.argv[1], String(process.pid))", marker] },
    started: () => existsSync(marker),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Every text a host can see of an error: message, own fields, partial outcome, causes. */
export function errorSurface(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) parts.push(current.name, current.message, current.stack ?? "");
    else parts.push(String(current));
    if (typeof current === "object") parts.push(JSON.stringify(current));
    current = typeof current === "object" ? (current as { cause?: unknown }).cause : undefined;
  }
  return parts.join("\n");
}

export function assertNoSecret(secret: string, surface: string, what: string): void {
  assert.ok(!surface.includes(secret), `the secret appears in ${what}`);
}

/** Drains a run and checks its events, and its result or error, for `secret`. */
export async function assertRunShowsNoSecret(secret: string, stream: RunStream, what: string): Promise<void> {
  const events: AgentEvent[] = await collect(stream).catch((e: unknown) => (assertNoSecret(secret, errorSurface(e), `a stream error of ${what}`), []));
  assertNoSecret(secret, JSON.stringify(events), `the events of ${what}`);
  const outcome = await stream.result.then(
    (result) => JSON.stringify({ text: result.text, raw: result.raw(), transcript: result.transcript() }),
    (error: unknown) => errorSurface(error),
  );
  assertNoSecret(secret, outcome, `the result or error of ${what}`);
}

/** A new thread, or undefined when the driver runs no threads (`feature_unsupported`). */
export async function startThreadUnlessUnsupported(agent: Agent): Promise<Thread | undefined> {
  try {
    return await agent.startThread();
  } catch (error) {
    if (isCode("feature_unsupported")(error)) return undefined;
    throw error;
  }
}

/** Everything `store` keeps of thread `id`: its record, every history turn, its provider state. */
export async function storedThreadSurface(store: ThreadStore, id: string): Promise<string> {
  const parts: string[] = [JSON.stringify(await store.get(id))];
  let before: number | undefined;
  do {
    const page = await store.history(id, { limit: 1000, ...(before !== undefined ? { before } : {}) });
    parts.push(JSON.stringify(page.turns));
    before = page.nextBefore;
  } while (before !== undefined);
  parts.push((await store.loadProviderState?.(id)) ?? "");
  return parts.join("\n");
}

export function isCode(code: string): (e: unknown) => boolean {
  return (e: unknown) => AdaptorError.is(e) && e.code === code;
}
