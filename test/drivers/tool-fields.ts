/**
 * Records which normalized tool fields a real-CLI lane run filled, per tool kind, and compares them
 * with the driver's checked-in fixture (test/fixtures/tool-fields/<driver>.json). With
 * UPDATE_TOOL_FIELDS=1 the observed kinds are written into the fixture instead; then
 * `node scripts/tool-fields.mjs --update` renders docs/api.md's per-driver table from the fixtures.
 *
 * Several lane tests of one driver may each record some kinds: a call checks (or rewrites) only the
 * kinds its events contain, so a shell test and a file test of one driver share one fixture.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { AgentEvent, DriverEvent, FileChange, ToolKind } from "../../src/events/types.js";
import { TOOL_FIELDS, TOOL_KINDS, type ToolFieldsFixture } from "../../scripts/tool-fields.mjs";

export const TOOL_FIELDS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/tool-fields");

type ToolEvent = AgentEvent | DriverEvent;
type Observed = Map<ToolKind, Set<string>>;

/** A unified diff of `file` alone: `---`/`+++` headers, the second (or first, when deleted) naming it. */
function isUnifiedDiffOf(file: FileChange): boolean {
  const diff = file.diff;
  if (diff === undefined || !diff.startsWith("--- ") || !diff.includes("\n+++ ")) return false;
  const headers = diff.split("\n", 2).join("\n");
  return headers.includes(file.path);
}

function noteFiles(fields: Set<string>, where: string, files: FileChange[] | undefined): void {
  if (files === undefined || files.length === 0) return;
  fields.add(`${where}.files`);
  if (files.some(isUnifiedDiffOf)) fields.add("files.diff");
  if (files.some((f) => f.movedFrom !== undefined)) fields.add("files.movedFrom");
}

function noteStarted(fields: Set<string>, event: Extract<ToolEvent, { type: "tool.started" }>): void {
  if (event.name !== undefined && event.name !== "") fields.add("started.name");
  if (event.command !== undefined && event.command !== "") fields.add("started.command");
  if (event.cwd !== undefined && event.cwd !== "") fields.add("started.cwd");
  if (event.mcp !== undefined) fields.add("started.mcp");
  if (event.rawInput !== undefined) fields.add("started.rawInput");
  // Fields the contract no longer has: a driver that still sends them shows up in the table.
  if (Object.hasOwn(event, "input")) fields.add("deprecated.input");
  noteFiles(fields, "started", event.files);
}

function noteUpdated(fields: Set<string>, event: Extract<ToolEvent, { type: "tool.updated" }>): void {
  if (event.output !== undefined && event.output !== "") fields.add("updated.output");
  if (Object.hasOwn(event, "diff")) fields.add("deprecated.diff");
  noteFiles(fields, "updated", event.files);
}

function noteCompleted(fields: Set<string>, event: Extract<ToolEvent, { type: "tool.completed" }>): void {
  if (event.output !== undefined && event.output !== "") fields.add("completed.output");
  if (event.exitCode !== undefined) fields.add("completed.exitCode");
  if (Object.hasOwn(event, "diff")) fields.add("deprecated.diff");
  noteFiles(fields, "completed", event.files);
}

/** The normalized fields the run's tool events carry, per kind (kind from each call's `tool.started`). */
export function observeToolFields(events: readonly ToolEvent[]): Record<string, string[]> {
  const kindOf = new Map<string, ToolKind>();
  const observed: Observed = new Map();
  const fieldsOf = (callId: string): Set<string> | undefined => {
    const kind = kindOf.get(callId);
    if (kind === undefined) return undefined;
    let fields = observed.get(kind);
    if (fields === undefined) observed.set(kind, (fields = new Set()));
    return fields;
  };
  for (const event of events) {
    if (event.type === "tool.started") {
      kindOf.set(event.callId, event.kind);
      noteStarted(fieldsOf(event.callId)!, event);
    } else if (event.type === "tool.updated") {
      const fields = fieldsOf(event.callId);
      if (fields !== undefined) noteUpdated(fields, event);
    } else if (event.type === "tool.completed") {
      const fields = fieldsOf(event.callId);
      if (fields !== undefined) noteCompleted(fields, event);
    }
  }
  const result: Record<string, string[]> = {};
  for (const kind of TOOL_KINDS) {
    const fields = observed.get(kind as ToolKind);
    if (fields !== undefined) result[kind] = TOOL_FIELDS.map((row) => row.field).filter((field) => fields.has(field));
  }
  return result;
}

/** The fixture file of `driver` (`acp:gemini` → `acp-gemini.json`). */
export function toolFieldsFile(driver: string): string {
  return join(TOOL_FIELDS_DIR, `${driver.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.json`);
}

async function readFixture(driver: string): Promise<ToolFieldsFixture | undefined> {
  try {
    return JSON.parse(await readFile(toolFieldsFile(driver), "utf8")) as ToolFieldsFixture;
  } catch {
    return undefined;
  }
}

/**
 * Asserts that the tool fields observed in `events` equal, for each kind they contain, the
 * driver's recorded fixture; with UPDATE_TOOL_FIELDS=1 records them instead. Returns what it observed.
 */
export async function expectToolFields(driver: string, events: readonly ToolEvent[]): Promise<Record<string, string[]>> {
  const observed = observeToolFields(events);
  const fixture = await readFixture(driver);
  if (process.env.UPDATE_TOOL_FIELDS === "1") {
    const kinds: Record<string, string[]> = { ...fixture?.kinds, ...observed };
    const ordered: Record<string, string[]> = {};
    for (const kind of TOOL_KINDS) if (kinds[kind] !== undefined) ordered[kind] = kinds[kind];
    await mkdir(TOOL_FIELDS_DIR, { recursive: true });
    await writeFile(toolFieldsFile(driver), `${JSON.stringify({ driver, kinds: ordered }, null, 2)}\n`);
    return observed;
  }
  const hint = `re-record with UPDATE_TOOL_FIELDS=1, then node scripts/tool-fields.mjs --update`;
  expect(fixture, `no tool-fields fixture for ${driver}: ${hint}`).toBeDefined();
  for (const [kind, fields] of Object.entries(observed)) {
    expect(fields, `${driver} ${kind} tool fields differ from ${toolFieldsFile(driver)}; ${hint}`).toEqual(fixture!.kinds[kind]);
  }
  return observed;
}
