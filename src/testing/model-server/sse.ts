/** Server-sent events: the frames the server writes, and a reader for tests that call it directly. */

/** One SSE event. `data` is JSON text (or `[DONE]` for Chat Completions). */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Serializes an event as `event: …\ndata: …\n\n`. */
export function formatSse(event: SseEvent): string {
  const head = event.event === undefined ? "" : `event: ${event.event}\n`;
  const data = event.data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n");
  return `${head}${data}\n\n`;
}

/** A JSON payload as one SSE event, named or not. */
export function jsonEvent(payload: unknown, name?: string): SseEvent {
  return name === undefined ? { data: JSON.stringify(payload) } : { event: name, data: JSON.stringify(payload) };
}

/** What {@link readSse} collected. */
export interface SseReadResult {
  /** Events received, in order, with `json` parsed when `data` is JSON. */
  events: (SseEvent & { json?: unknown })[];
  /** `true` when the body ended normally; `false` when the connection was cut. */
  complete: boolean;
  /** The read error when the stream was cut. */
  error?: unknown;
}

function parseBlock(block: string): (SseEvent & { json?: unknown }) | undefined {
  let name: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (data.length === 0) return undefined;
  const event: SseEvent & { json?: unknown } = { data: data.join("\n") };
  if (name !== undefined) event.event = name;
  try {
    event.json = JSON.parse(event.data) as unknown;
  } catch {
    // non-JSON data such as `[DONE]`
  }
  return event;
}

/**
 * Reads a whole SSE response body. Never throws for a cut stream: it reports what arrived and
 * `complete: false`.
 *
 * @example
 * const res = await fetch(`${server.url}/v1/messages`, { method: "POST", body });
 * const { events, complete } = await readSse(res);
 */
export async function readSse(response: Response): Promise<SseReadResult> {
  const events: SseReadResult["events"] = [];
  if (!response.body) return { events, complete: true };
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let buffer = "";
  const drain = (final: boolean): void => {
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = final ? "" : (blocks.pop() ?? "");
    for (const block of blocks) {
      const event = parseBlock(block);
      if (event) events.push(event);
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      drain(false);
    }
  } catch (error) {
    drain(false);
    return { events, complete: false, error };
  }
  buffer += decoder.decode();
  drain(true);
  return { events, complete: true };
}
