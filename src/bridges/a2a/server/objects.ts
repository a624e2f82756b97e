/**
 * Builders of the A2A SDK's objects (messages, parts, status and artifact updates) for one task.
 * The SDK's enums are read from the loaded module, never imported statically.
 */
import type { AgentExecutionEvent } from "@a2a-js/sdk/server";
import type { Message, Part, Task, TaskState } from "@a2a-js/sdk";
import { randomUUID } from "node:crypto";
import type { A2ASdk } from "../sdk.js";
import { EVENT_METADATA_KEY, type CarriedEvent } from "../protocol.js";

/** A part as the SDK wants it: one content case, no file name or media type unless given. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** Metadata carrying one canonical event (see protocol.ts). */
export function carrying(event: CarriedEvent): Record<string, unknown> {
  return { [EVENT_METADATA_KEY]: event };
}

/** Publishes the A2A events of one task, with its ids and the SDK's enums bound. */
export class TaskObjects {
  constructor(
    readonly sdk: A2ASdk,
    readonly taskId: string,
    readonly contextId: string,
  ) {}

  get states(): typeof TaskState {
    return this.sdk.core.TaskState;
  }

  agentMessage(parts: Part[], metadata?: Record<string, unknown>): Message {
    return {
      messageId: randomUUID(),
      contextId: this.contextId,
      taskId: this.taskId,
      role: this.sdk.core.Role.ROLE_AGENT,
      parts,
      metadata,
      extensions: [],
      referenceTaskIds: [],
    };
  }

  task(state: TaskState, base?: Task): AgentExecutionEvent {
    const task: Task = {
      id: this.taskId,
      contextId: this.contextId,
      status: { state, message: undefined, timestamp: new Date().toISOString() },
      artifacts: base?.artifacts ?? [],
      history: base?.history ?? [],
      metadata: base?.metadata ?? {},
    };
    return this.sdk.server.AgentEvent.task(task);
  }

  status(state: TaskState, message: Message | undefined, metadata?: Record<string, unknown>): AgentExecutionEvent {
    return this.sdk.server.AgentEvent.statusUpdate({
      taskId: this.taskId,
      contextId: this.contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      metadata,
    });
  }

  artifact(artifactId: string, name: string, parts: Part[], flags: { append: boolean; lastChunk: boolean }, metadata?: Record<string, unknown>): AgentExecutionEvent {
    return this.sdk.server.AgentEvent.artifactUpdate({
      taskId: this.taskId,
      contextId: this.contextId,
      artifact: { artifactId, name, description: "", parts, metadata, extensions: [] },
      append: flags.append,
      lastChunk: flags.lastChunk,
      metadata: undefined,
    });
  }
}
