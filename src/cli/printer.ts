/**
 * Prints a live event stream for a person: message text streamed inline once, every other event
 * as one line (`describeEvent`), coloured where the terminal allows. Shared by `run` and `attach`.
 */
import type { AgentEvent } from "../events/types.js";
import type { SessionNotice } from "../session/types.js";
import { describeEvent, describeSessionNotice } from "./format.js";
import type { LiveOutput } from "./progress.js";
import type { Colors } from "./terminal.js";

export class EventPrinter {
  readonly #out: LiveOutput;
  readonly #colors: Colors;
  #streamingItem: string | undefined;

  constructor(out: LiveOutput, colors: Colors) {
    this.#out = out;
    this.#colors = colors;
  }

  /** Print one event; failures (`run.failed`, `run.cancelled`) are left to the caller when `skipTerminalFailures`. */
  print(event: AgentEvent, options: { skipTerminalFailures?: boolean } = {}): void {
    const activity = activityOf(event);
    if (activity !== undefined) this.#out.activity(activity);
    // Message text is printed once: streamed inline as deltas, or whole when it arrives unstreamed.
    if (event.type === "message.delta") {
      if (this.#streamingItem !== event.itemId) this.#out.write(this.#streamingItem ? "\n" : "");
      this.#streamingItem = event.itemId;
      this.#out.activity(undefined);
      this.#out.write(event.text);
      return;
    }
    if (event.type === "reasoning.delta") return;
    if (this.#streamingItem) {
      const finished = event.type === "message.completed" && event.itemId === this.#streamingItem;
      this.endLine();
      if (finished) return;
    }
    if (event.type === "message.completed") {
      this.#out.write(`${event.text}\n`);
      return;
    }
    if (options.skipTerminalFailures && (event.type === "run.failed" || event.type === "run.cancelled")) return;
    this.#out.write(`${this.#paint(event.type, describeEvent(event))}\n`);
  }

  notice(notice: SessionNotice): void {
    this.endLine();
    this.#out.write(`${this.#colors.dim(describeSessionNotice(notice))}\n`);
  }

  /** Close a line of streamed text. */
  endLine(): void {
    if (this.#streamingItem === undefined) return;
    this.#streamingItem = undefined;
    this.#out.write("\n");
  }

  #paint(type: AgentEvent["type"], line: string): string {
    const c = this.#colors;
    switch (type) {
      case "run.failed":
        return c.red(line);
      case "run.cancelled":
      case "approval.requested":
      case "question.requested":
        return c.yellow(line);
      case "run.completed":
        return c.green(line);
      case "tool.started":
      case "tool.completed":
        return c.cyan(line);
      default:
        return c.dim(line);
    }
  }
}

/** What the spinner says while this event's step goes on; `undefined` keeps the current text. */
function activityOf(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "run.started":
      return "starting";
    case "reasoning.delta":
    case "reasoning.completed":
      return "thinking";
    case "tool.started":
      return `running ${(event.command ?? event.title).replace(/\s+/g, " ").slice(0, 60)}`;
    case "tool.completed":
    case "message.completed":
      return "working";
    default:
      return undefined;
  }
}
