/**
 * The session's inbox: queued messages and the rule that turns them into one run. Pure state, no
 * I/O, so the ordering rules are testable on their own (and model-checked).
 *
 * - Everything queued when a run is admitted joins that one run (coalescing); its prompt is the
 *   steers first, then the follow-ups, then the rest in arrival order.
 * - An entry with `wake: false` (context) joins the next run but never causes one.
 * - Past the cap the oldest entry is dropped (`inbox_full`).
 * - Inputs live in memory only: a restored entry keeps only how many it had.
 */
import { randomUUID } from "node:crypto";
import type { InputRef } from "../input/refs.js";
import type { QueuedPrompt } from "./types.js";

/** What one admitted run is made of. */
export interface InboxBatch {
  entries: QueuedPrompt[];
  promptIds: string[];
  prompt: string;
  inputs: InputRef[];
  /** The last originator among the entries that named one. */
  from?: string;
}

/** A new prompt id (`prm_…`). */
export function newPromptId(): string {
  return `prm_${randomUUID()}`;
}

const KIND_ORDER: Record<QueuedPrompt["kind"], number> = { steer: 0, follow_up: 1, prompt: 2 };

export class Inbox {
  readonly #cap: number;
  #entries: QueuedPrompt[];
  readonly #inputs = new Map<string, InputRef[]>();

  constructor(cap: number, entries: readonly QueuedPrompt[] = []) {
    this.#cap = cap;
    this.#entries = entries.map((entry) => ({ ...entry }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** A copy of the queue as the store keeps it. */
  snapshot(): QueuedPrompt[] {
    return this.#entries.map((entry) => ({ ...entry }));
  }

  ids(): string[] {
    return this.#entries.map((entry) => entry.promptId);
  }

  /** Whether some entry may cause a run (anything but `wake: false` context). */
  hasWaking(): boolean {
    return this.#entries.some(causesRun);
  }

  /** Queue `entry` at the back (or the front: a resume's steer); returns the entries the cap pushed out. */
  add(entry: QueuedPrompt, inputs: readonly InputRef[] | undefined, position: "back" | "front" = "back"): QueuedPrompt[] {
    if (inputs && inputs.length > 0) this.#inputs.set(entry.promptId, [...inputs]);
    const queued = { ...entry };
    if (position === "front") this.#entries.unshift(queued);
    else this.#entries.push(queued);
    const dropped: QueuedPrompt[] = [];
    while (this.#entries.length > this.#cap) {
      // The oldest goes, never the entry just queued — wherever it went (the cap is at least 1).
      const index = this.#entries.findIndex((queuedEntry) => queuedEntry !== queued);
      if (index < 0) break;
      const [oldest] = this.#entries.splice(index, 1);
      this.#inputs.delete(oldest!.promptId);
      dropped.push(oldest!);
    }
    return dropped;
  }

  /** Put a taken batch back at the front, in its order (a run that could not start, a handoff's retry). */
  restore(batch: InboxBatch): void {
    for (const entry of [...batch.entries].reverse()) this.#entries.unshift({ ...entry });
    batch.entries.forEach((entry) => {
      const inputs = batch.inputs.length > 0 ? inputsOf(batch, entry) : undefined;
      if (inputs) this.#inputs.set(entry.promptId, inputs);
    });
  }

  /** Remove every entry (an abandon); returns them in queue order. */
  clear(): QueuedPrompt[] {
    const dropped = this.#entries;
    this.#entries = [];
    this.#inputs.clear();
    return dropped;
  }

  /** Remove the entries whose inputs did not survive (a restart); returns them. */
  dropLostInputs(): QueuedPrompt[] {
    const lost = this.#entries.filter((entry) => entry.inputCount > 0 && !this.#inputs.has(entry.promptId));
    this.#entries = this.#entries.filter((entry) => !lost.includes(entry));
    return lost;
  }

  /** Take the whole queue as one run, when some entry causes one. */
  take(): InboxBatch | undefined {
    if (!this.hasWaking()) return undefined;
    const entries = this.#entries;
    this.#entries = [];
    const ordered = entries.map((entry, index) => ({ entry, index })).sort((a, b) => KIND_ORDER[a.entry.kind] - KIND_ORDER[b.entry.kind] || a.index - b.index).map(({ entry }) => entry);
    const inputs: InputRef[] = [];
    const perEntry = new Map<string, InputRef[]>();
    for (const entry of ordered) {
      const own = this.#inputs.get(entry.promptId) ?? [];
      perEntry.set(entry.promptId, own);
      inputs.push(...own);
      this.#inputs.delete(entry.promptId);
    }
    // The originator is the last to arrive, whatever its kind.
    const from = entries.reduce<string | undefined>((last, entry) => entry.from ?? last, undefined);
    const batch: InboxBatch = { entries: ordered, promptIds: ordered.map((entry) => entry.promptId), prompt: ordered.map((entry) => entry.text).join("\n\n"), inputs };
    if (from !== undefined) batch.from = from;
    batchInputs.set(batch, perEntry);
    return batch;
  }
}

/** Each batch's inputs per entry, so a batch put back keeps them. */
const batchInputs = new WeakMap<InboxBatch, Map<string, InputRef[]>>();

function inputsOf(batch: InboxBatch, entry: QueuedPrompt): InputRef[] | undefined {
  const own = batchInputs.get(batch)?.get(entry.promptId);
  return own && own.length > 0 ? own : undefined;
}

function causesRun(entry: QueuedPrompt): boolean {
  return entry.kind !== "prompt" || entry.wake;
}
