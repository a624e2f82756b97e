/** The SDK's message and part objects a client sends. */
import { randomUUID } from "node:crypto";
import type { Message, Part } from "@a2a-js/sdk";
import type { A2ASdk } from "../sdk.js";

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

export function userMessage(sdk: A2ASdk, parts: Part[], ids: { taskId?: string; contextId?: string }): Message {
  return { messageId: randomUUID(), contextId: ids.contextId ?? "", taskId: ids.taskId ?? "", role: sdk.core.Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}
