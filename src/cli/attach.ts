/**
 * `attach <id>`: a session rendered live in the terminal from the server's event stream —
 * replayed from the start (or `--after`), then followed. A pending approval becomes a prompt of
 * the offered options when a person is at the terminal, answered over HTTP; an answer given
 * elsewhere (the console, another terminal) withdraws the prompt. Ctrl-C detaches and leaves the
 * session running.
 */
import type { AgentEvent } from "../events/types.js";
import type { SessionNotice } from "../session/types.js";
import { promptAbandoned, promptApproval } from "./approvals.js";
import { ApiClient, type RemoteFlags } from "./client.js";
import { CliError, EXIT, type ExitCode } from "./exit.js";
import { EventPrinter } from "./printer.js";
import type { LiveOutput } from "./progress.js";
import { sessionEvents, type SseFrame } from "./sse.js";
import { colorsFor, interactive } from "./terminal.js";

export interface AttachFlags extends RemoteFlags {
  after?: number;
}

type ApprovalRequested = Extract<AgentEvent, { type: "approval.requested" }>;

interface OpenPrompt {
  requestId: string;
  abort: AbortController;
  /** Output held back while the prompt is drawn. */
  held: string[];
}

export async function attachSession(id: string, flags: AttachFlags, detach: AbortController): Promise<ExitCode> {
  const client = await ApiClient.from(flags);
  const path = `/sessions/${encodeURIComponent(id)}`;
  const view = await client.json<{ id: string; state: string }>("GET", path);
  const canPrompt = !flags.json && interactive();
  process.stderr.write(`attached to ${view.id} (${view.state}); Ctrl-C detaches\n`);

  let prompt: OpenPrompt | undefined;
  const out: LiveOutput = {
    write: (text) => (prompt ? prompt.held.push(text) : process.stdout.write(text)),
    activity: () => undefined,
    pause: () => undefined,
    close: () => undefined,
  };
  const printer = new EventPrinter(out, colorsFor(process.stdout));
  // One prompt at a time, in request order.
  let prompts: Promise<void> = Promise.resolve();

  const ask = async (event: ApprovalRequested): Promise<void> => {
    // A replayed request may long be answered: only what the server still waits for is asked.
    const pending = await client.json<{ approvals: { requestId: string }[] }>("GET", `${path}/pending`);
    if (detach.signal.aborted || !pending.approvals.some((a) => a.requestId === event.requestId)) return;
    const open: OpenPrompt = { requestId: event.requestId, abort: new AbortController(), held: [] };
    prompt = open;
    const onDetach = () => open.abort.abort();
    detach.signal.addEventListener("abort", onDetach, { once: true });
    try {
      const answer = await promptApproval(event, open.abort.signal);
      await client
        .json("POST", `${path}/approvals/${encodeURIComponent(event.requestId)}`, answer)
        .catch((error: unknown) => {
          // Answered elsewhere in the meantime: the stream shows who won.
          if (!(error instanceof CliError && (error.exitCode === EXIT.failed))) throw error;
        });
    } catch (error) {
      if (!promptAbandoned(error)) throw error;
      // Ctrl-C inside the prompt detaches, like everywhere else; an answer from elsewhere just closes it.
      if (!open.abort.signal.aborted) detach.abort();
    } finally {
      detach.signal.removeEventListener("abort", onDetach);
      prompt = undefined;
      for (const text of open.held) process.stdout.write(text);
    }
  };

  try {
    const events = sessionEvents(client, id, {
      signal: detach.signal,
      ...(flags.after !== undefined ? { after: flags.after } : {}),
      // A server that ends the stream of an archived session has nothing more to send.
      finished: async () => (await client.json<{ state: string }>("GET", path)).state === "archived",
    });
    for await (const frame of events) {
      const event = parse(frame);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ seq: frame.id, event })}\n`);
      } else if (isNotice(event)) {
        printer.notice(event);
      } else {
        printer.print(event);
      }
      if (event.type === "approval.requested" && canPrompt) prompts = prompts.then(() => ask(event));
      if (event.type === "approval.resolved" && prompt?.requestId === event.requestId) prompt.abort.abort();
      if (event.type === "session.state" && event.state === "archived") break;
    }
  } finally {
    printer.endLine();
    prompt?.abort.abort();
    // Awaited below on success; on a failed stream its own failure must not go unhandled.
    prompts.catch(() => undefined);
  }
  // A failed answer (the server refused it) is reported, not swallowed.
  await prompts;
  return EXIT.ok;
}

type Streamed = AgentEvent | SessionNotice;

function isNotice(event: Streamed): event is SessionNotice {
  return event.type.startsWith("session.");
}

/** A frame's event: the server wrote it from the session's log, so its shape is trusted. */
function parse(frame: SseFrame): Streamed {
  if (frame.event === "stream.error") {
    let message = "the server's event stream failed";
    try {
      const body = JSON.parse(frame.data) as { message?: unknown };
      if (typeof body.message === "string") message = body.message;
    } catch {
      // Keep the generic message.
    }
    throw new CliError("stream_failed", message, EXIT.failed);
  }
  try {
    return JSON.parse(frame.data) as Streamed;
  } catch {
    throw new CliError("stream_invalid", `event ${frame.id ?? "?"} is not JSON`, EXIT.failed);
  }
}
