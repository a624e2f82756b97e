/**
 * The canonical transcript of one turn as thread history keeps it: the run's events, compacted
 * and bounded so that a turn costs storage in proportion to what a reader sees, not to how
 * finely the provider streamed it.
 *
 * - A message or reasoning item's deltas are dropped when its completed event is there, and
 *   merged into one delta (at the first one's place) when the run ended before it.
 * - A tool call's `tool.updated` events merge into one: outputs concatenated (dropped when
 *   `tool.completed` carries the whole output), the last file list kept (dropped when
 *   `tool.completed` lists the files). Deprecated duplicates (`input` beside `rawInput`, `diff`
 *   beside `files`) are left out.
 * - Every text, output and diff longer than `HISTORY_FIELD_CAP_BYTES` keeps its head and ends
 *   with a marker line; a raw tool input whose JSON is longer than that becomes the capped JSON
 *   text.
 * - A turn whose events still exceed `HISTORY_TURN_CAP_BYTES` keeps its first and last events
 *   and reports how many in the middle were left out.
 *
 * Events arrive redacted (core redacts before publishing) and never hold input bytes or paths;
 * compaction only removes and shortens, so it keeps both properties.
 */
import type { AgentEvent, EventOf, FileChange } from "../events/types.js";

/** The longest text, output or diff one history event keeps, in UTF-8 bytes. */
export const HISTORY_FIELD_CAP_BYTES = 64 * 1024;
/** The most event JSON one history turn keeps, in UTF-8 bytes. */
export const HISTORY_TURN_CAP_BYTES = 1024 * 1024;

export interface CompactedTranscript {
  events: AgentEvent[];
  /** Events left out of the middle to stay within the turn cap. */
  omittedEvents?: number;
}

const encoder = new TextEncoder();

/** Whether `text` is longer than `cap` UTF-8 bytes; encodes only when the length cannot tell. */
function overCap(text: string, cap: number): boolean {
  if (text.length * 3 <= cap) return false;
  if (text.length > cap) return true;
  return encoder.encode(text).length > cap;
}

/** `text` cut to at most `cap` UTF-8 bytes of head plus a marker line naming what was left out. */
export function capText(text: string, cap = HISTORY_FIELD_CAP_BYTES): string {
  if (!overCap(text, cap)) return text;
  const encoded = encoder.encode(text);
  const size = encoded.length;
  // Decoding a cut in the middle of a character yields U+FFFD; drop it.
  const head = new TextDecoder().decode(encoded.subarray(0, cap)).replace(/\uFFFD$/, "");
  return `${head}\n[truncated: ${size - encoder.encode(head).length} bytes omitted]`;
}

/** Compact and bound one turn's events (see the module comment). The input is not changed. */
export function compactTranscript(events: readonly AgentEvent[]): CompactedTranscript {
  const merged = mergeDeltas(events).map(capEvent);
  return boundTurn(merged);
}

type ItemDelta = EventOf<"message.delta"> | EventOf<"reasoning.delta">;
type ToolUpdate = EventOf<"tool.updated">;

/** Drops or merges streamed deltas as the module comment says; keeps event order otherwise. */
function mergeDeltas(events: readonly AgentEvent[]): AgentEvent[] {
  const completedItems = new Set<string>();
  const completedTools = new Map<string, EventOf<"tool.completed">>();
  for (const event of events) {
    if (event.type === "message.completed" || event.type === "reasoning.completed") completedItems.add(`${event.type}:${event.itemId}`);
    if (event.type === "tool.completed") completedTools.set(event.callId, event);
  }
  const out: AgentEvent[] = [];
  const openItems = new Map<string, ItemDelta>();
  const openTools = new Map<string, ToolUpdate>();
  for (const event of events) {
    if (event.type === "message.delta" || event.type === "reasoning.delta") {
      const kind = event.type === "message.delta" ? "message.completed" : "reasoning.completed";
      if (completedItems.has(`${kind}:${event.itemId}`)) continue;
      const key = `${event.type}:${event.itemId}`;
      const open = openItems.get(key);
      if (open) open.text += event.text;
      else {
        const copy = { ...event };
        openItems.set(key, copy);
        out.push(copy);
      }
    } else if (event.type === "tool.updated") {
      const open = openTools.get(event.callId);
      if (open) mergeToolUpdate(open, event);
      else {
        const copy = { ...event };
        openTools.set(event.callId, copy);
        out.push(copy);
      }
    } else {
      out.push(event);
    }
  }
  return out.filter((event) => event.type !== "tool.updated" || keepToolUpdate(event, completedTools.get(event.callId)));
}

function mergeToolUpdate(into: ToolUpdate, next: ToolUpdate): void {
  if (next.output !== undefined) into.output = (into.output ?? "") + next.output;
  if (next.files !== undefined) into.files = next.files;
}

/** What the completed event already says is dropped from the merged update; an empty one goes. */
function keepToolUpdate(update: ToolUpdate, completed: EventOf<"tool.completed"> | undefined): boolean {
  if (completed?.output !== undefined) delete update.output;
  if (completed?.files !== undefined) delete update.files;
  return update.output !== undefined || update.files !== undefined;
}

/** A copy of `event` with its long fields capped. */
function capEvent(event: AgentEvent): AgentEvent {
  switch (event.type) {
    case "message.delta":
    case "message.completed":
    case "reasoning.delta":
    case "reasoning.completed":
      return { ...event, text: capText(event.text) };
    case "tool.started": {
      const copy = { ...event };
      if (copy.rawInput !== undefined) copy.rawInput = capRawInput(copy.rawInput);
      if (copy.command !== undefined) copy.command = capText(copy.command);
      if (copy.files !== undefined) copy.files = copy.files.map(capFile);
      return copy;
    }
    case "tool.updated":
    case "tool.completed": {
      const copy = { ...event };
      if (copy.output !== undefined) copy.output = capText(copy.output);
      if (copy.files !== undefined) copy.files = copy.files.map(capFile);
      return copy;
    }
    default:
      return event;
  }
}

function capFile(file: FileChange): FileChange {
  return file.diff === undefined ? { ...file } : { ...file, diff: capText(file.diff) };
}

function capRawInput(raw: unknown): unknown {
  const json = JSON.stringify(raw);
  return json === undefined || !overCap(json, HISTORY_FIELD_CAP_BYTES) ? raw : capText(json);
}

/** Keeps the head and tail of a turn over the cap, half the budget each. */
function boundTurn(events: AgentEvent[]): CompactedTranscript {
  const sizes = events.map((event) => encoder.encode(JSON.stringify(event)).length + 1);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= HISTORY_TURN_CAP_BYTES) return { events };
  const half = HISTORY_TURN_CAP_BYTES / 2;
  let head = 0;
  for (let used = 0; head < events.length && used + sizes[head]! <= half; head++) used += sizes[head]!;
  let tail = events.length;
  for (let used = 0; tail > head && used + sizes[tail - 1]! <= half; tail--) used += sizes[tail - 1]!;
  return { events: [...events.slice(0, head), ...events.slice(tail)], omittedEvents: tail - head };
}
