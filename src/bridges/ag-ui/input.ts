/**
 * What the endpoint takes from an AG-UI `RunAgentInput` (already validated by the protocol's
 * own schema): the prompt — the last user message's text, followed by the input's `context`
 * entries — and the client's state.
 */

/** The fields of an AG-UI `RunAgentInput` the endpoint reads. */
export interface AgUiRunInput {
  threadId: string;
  runId: string;
  messages: { id: string; role: string; content?: unknown }[];
  state?: unknown;
  context?: { description: string; value: string }[];
  tools?: unknown[];
  forwardedProps?: unknown;
  resume?: { interruptId: string; status: "resolved" | "cancelled"; payload?: unknown }[];
}

/** A request the endpoint refuses with 4xx and this message. */
export class AgUiInputError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The run's prompt: the last user message's text, then each context entry. */
export function promptOf(input: AgUiRunInput): string {
  const last = [...input.messages].reverse().find((message) => message.role === "user");
  if (last === undefined) throw new AgUiInputError(400, "the input has no user message to run");
  const text = textOf(last.content);
  const context = (input.context ?? []).map((entry) => `${entry.description}: ${entry.value}`);
  return context.length > 0 ? `${text}\n\nContext:\n${context.join("\n")}` : text;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content as { type?: unknown; text?: unknown }[]) {
    // Images, audio and documents would need the agent's inputs, which take files, not bytes from a request.
    if (part.type !== "text" || typeof part.text !== "string") throw new AgUiInputError(400, `user message part of type ${String(part.type)} is not supported: send text`);
    parts.push(part.text);
  }
  return parts.join("\n");
}

/** The client's state when it is an object (kept beside the bridge's own key). */
export function clientState(input: AgUiRunInput): Record<string, unknown> {
  const state = input.state;
  return typeof state === "object" && state !== null && !Array.isArray(state) ? (state as Record<string, unknown>) : {};
}
