/**
 * A2A task events → canonical events, for any A2A agent: text artifacts are messages (a chunk
 * appends; a chunk that is not an append replaces, so only the new text is a delta), other status
 * messages while working are messages of their own, and the state says when the task waits for
 * input or ended. When an event carries its canonical event (this library's A2A server), tool
 * calls, plans, reasoning, usage and notices are rebuilt from it — each checked against the event
 * schemas first, so a remote agent's malformed payload is dropped, never a contract violation.
 */
import type { Message, Part, StreamResponse, Task, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import type { DriverEvent } from "../../../events/types.js";
import { agentEventSchemas } from "../../../events/schema.js";
import { isNoticeCode } from "../../../events/notice-codes.js";
import type { Usage } from "../../../events/usage.js";
import { carriedEvent, type CarriedEvent } from "../protocol.js";

/** Where the task stands after one event. */
export type Step =
  | { kind: "continue" }
  | { kind: "input"; message: Message | undefined; carried: CarriedEvent | undefined }
  | { kind: "end"; state: "completed" | "failed" | "canceled" | "rejected" | "auth_required"; text: string; carried: CarriedEvent | undefined };

const CONTINUE: Step = { kind: "continue" };
/** Carried events rebuilt as they are; the rest are the run's own (started, resolutions, terminals). */
const REBUILT = new Set(["tool.started", "tool.updated", "tool.completed", "plan.updated", "reasoning.completed", "usage.observed", "notice"]);

/** One part as text: text as it is, data as JSON, a file as a marker naming it (its bytes are not text). */
function partText(part: Part): string {
  const content = part.content;
  if (content === undefined) return "";
  if (content.$case === "text") return content.value;
  if (content.$case === "data") return JSON.stringify(content.value);
  const type = part.mediaType ? ` (${part.mediaType})` : "";
  if (content.$case === "url") return `[file: ${part.filename || content.value}${type}]`;
  return `[file: ${part.filename || "unnamed"}${type}, ${content.value.byteLength} bytes]`;
}

export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map(partText).join("");
}

/** The canonical event a carried one stands for, when it passes the event schema. */
export function rebuilt(carried: CarriedEvent): DriverEvent | undefined {
  if (!REBUILT.has(carried.type)) return undefined;
  if (carried.type === "notice" && !isNoticeCode(carried.code)) return undefined;
  const schema = agentEventSchemas[carried.type as keyof typeof agentEventSchemas];
  if (!schema.safeParse({ ...carried, seq: 0, runId: "r", at: 0 }).success) return undefined;
  const { seq: _s, runId: _r, threadId: _t, at: _a, ...event } = carried;
  return event as unknown as DriverEvent;
}

interface ArtifactText {
  itemId: string;
  text: string;
  done: boolean;
}

export class StreamMapper {
  taskId: string | undefined;
  contextId: string | undefined;
  /** The text of the last message item (the result when the terminal status names none). */
  lastText = "";
  usage: Usage | undefined;
  readonly #emit: (event: DriverEvent) => Promise<void>;
  readonly #states: Record<number, string>;
  readonly #artifacts = new Map<string, ArtifactText>();
  #generation = 0;

  /** `states`: the SDK's `TaskState` enum (numbers to names). */
  constructor(emit: (event: DriverEvent) => Promise<void>, states: Record<number, string>) {
    this.#emit = emit;
    this.#states = states;
  }

  async take(response: StreamResponse): Promise<Step> {
    const payload = response.payload;
    if (payload === undefined) return CONTINUE;
    switch (payload.$case) {
      case "task":
        return this.task(payload.value);
      case "message":
        return this.#message(payload.value);
      case "statusUpdate":
        return this.#status(payload.value.status, payload.value.metadata, payload.value);
      case "artifactUpdate": {
        const artifact = payload.value.artifact;
        if (artifact !== undefined) await this.#artifact(artifact.artifactId, partsText(artifact.parts), payload.value.append, payload.value.lastChunk);
        return CONTINUE;
      }
    }
  }

  /** A task (the first event of a stream, or a snapshot): its artifacts and its state. */
  async task(task: Task): Promise<Step> {
    this.#ids(task.id, task.contextId);
    for (const artifact of task.artifacts ?? []) await this.#artifact(artifact.artifactId, partsText(artifact.parts), false, true);
    return this.#status(task.status, task.metadata, undefined);
  }

  #ids(taskId: string, contextId: string): void {
    if (taskId) this.taskId = taskId;
    if (contextId) this.contextId = contextId;
  }

  async #message(message: Message): Promise<Step> {
    this.#ids(message.taskId, message.contextId);
    const text = partsText(message.parts);
    await this.#say(message.messageId || "message", text);
    return { kind: "end", state: "completed", text, carried: undefined };
  }

  async #say(itemId: string, text: string): Promise<void> {
    if (text === "") return;
    await this.#emit({ type: "message.delta", itemId, text });
    await this.#emit({ type: "message.completed", itemId, text });
    this.lastText = text;
  }

  async #artifact(artifactId: string, text: string, append: boolean, lastChunk: boolean): Promise<void> {
    let item = this.#artifacts.get(artifactId);
    if (item?.done && !append && item.text === text) return; // a snapshot repeating what was said
    if (item === undefined || (item.done && append === false)) {
      item = { itemId: item === undefined ? artifactId : `${artifactId}#${++this.#generation}`, text: "", done: false };
      this.#artifacts.set(artifactId, item);
    }
    // A chunk that is no append replaces the artifact: only the text beyond what was said is new.
    const delta = append ? text : text.startsWith(item.text) ? text.slice(item.text.length) : text;
    if (!append && !text.startsWith(item.text)) item.text = "";
    if (delta !== "") {
      item.text += delta;
      await this.#emit({ type: "message.delta", itemId: item.itemId, text: delta });
    }
    if (lastChunk && !item.done) {
      item.done = true;
      await this.#emit({ type: "message.completed", itemId: item.itemId, text: item.text });
      this.lastText = item.text;
    }
  }

  /** Completes every artifact still streaming (the task ended). */
  async closeItems(): Promise<void> {
    for (const item of this.#artifacts.values()) {
      if (item.done) continue;
      item.done = true;
      await this.#emit({ type: "message.completed", itemId: item.itemId, text: item.text });
      this.lastText = item.text;
    }
  }

  // long-function: one branch per task state, each short
  async #status(status: TaskStatusUpdateEvent["status"], metadata: unknown, update: TaskStatusUpdateEvent | undefined): Promise<Step> {
    if (update !== undefined) this.#ids(update.taskId, update.contextId);
    if (status === undefined) return CONTINUE;
    const message = status.message;
    const carried = carriedEvent(message?.metadata) ?? carriedEvent(metadata);
    const text = partsText(message?.parts);
    const state = this.#states[status.state] ?? "";
    if (state === "TASK_STATE_SUBMITTED" || state === "TASK_STATE_WORKING") {
      if (carried !== undefined) {
        const event = rebuilt(carried);
        if (event !== undefined) await this.#emit(event);
        if (event?.type === "usage.observed") this.usage = event.usage;
      } else if (message !== undefined) {
        await this.#say(message.messageId || `status-${++this.#generation}`, text);
      }
      return CONTINUE;
    }
    if (state === "TASK_STATE_INPUT_REQUIRED") return { kind: "input", message, carried };
    if (state === "TASK_STATE_AUTH_REQUIRED") return { kind: "end", state: "auth_required", text, carried };
    await this.closeItems();
    if (state === "TASK_STATE_COMPLETED") return this.#completed(message, text, carried);
    if (state === "TASK_STATE_FAILED") return { kind: "end", state: "failed", text, carried };
    if (state === "TASK_STATE_CANCELED") return { kind: "end", state: "canceled", text, carried };
    if (state === "TASK_STATE_REJECTED") return { kind: "end", state: "rejected", text, carried };
    return CONTINUE;
  }

  async #completed(message: Message | undefined, text: string, carried: CarriedEvent | undefined): Promise<Step> {
    if (carried?.type === "run.completed") {
      const result = carried.result as { text?: unknown; usage?: unknown } | undefined;
      const usage = rebuilt({ type: "usage.observed", usage: result?.usage });
      if (usage?.type === "usage.observed") {
        this.usage = usage.usage;
        await this.#emit(usage);
      }
      return { kind: "end", state: "completed", text: typeof result?.text === "string" ? result.text : this.lastText, carried };
    }
    // Another agent's final status message is its answer, unless it repeats what was streamed.
    if (message !== undefined && text !== "" && text !== this.lastText) await this.#say(message.messageId || "final", text);
    return { kind: "end", state: "completed", text: text !== "" ? text : this.lastText, carried };
  }
}
