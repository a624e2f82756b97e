/**
 * text/event-stream framing (WHATWG HTML, "Server-sent events"). A field value never holds a
 * line break: data is split into one `data:` line per line, and `id` / `event` lose theirs.
 */

const LINE_BREAK = /\r\n|\r|\n/;
const LINE_BREAKS = /[\r\n\0]/g;

/** One event frame: `id:`, `event:`, one `data:` line per line of `data`, then a blank line. */
export function eventFrame(fields: { id?: string; event?: string; data: string }): string {
  let frame = "";
  if (fields.id !== undefined) frame += `id: ${fields.id.replace(LINE_BREAKS, "")}\n`;
  if (fields.event !== undefined) frame += `event: ${fields.event.replace(LINE_BREAKS, "")}\n`;
  for (const line of fields.data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** A comment frame: ignored by clients, keeps proxies and idle timers from closing the connection. */
export function commentFrame(text: string): string {
  return `: ${text.replace(LINE_BREAKS, " ")}\n\n`;
}

/** The reconnection delay a client should use, ms. */
export function retryFrame(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

/**
 * The sequence number a `Last-Event-ID` header names: a non-negative integer, else `undefined`
 * (a client that never saw an event sends none; anything else is not an id this bridge wrote).
 */
export function parseLastEventId(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^\d{1,15}$/.test(trimmed)) return undefined;
  return Number(trimmed);
}
