/** Lenient accessors for untyped provider payloads: unknown fields are ignored, nothing is guessed. */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const bool = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : undefined);

/** A readable message of an error or JSON-RPC error object, without payload dumps. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const data = (error as { data?: unknown }).data;
    const details = isObject(data) ? (str(data.details) ?? str(data.message)) : str(data);
    return details && !error.message.includes(details) ? `${error.message}: ${details}` : error.message;
  }
  if (isObject(error)) {
    const message = str(error.message) ?? "unknown error";
    const data = error.data;
    const details = isObject(data) ? (str(data.details) ?? str(data.message)) : str(data);
    return details && !message.includes(details) ? `${message}: ${details}` : message;
  }
  return String(error);
}

/** Strips ANSI colour codes and keeps the end of a stderr tail. */
export function stderrExcerpt(tail: string, max = 600): string {
  // eslint-disable-next-line no-control-regex
  const plain = tail.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").trim();
  return plain.length <= max ? plain : `…${plain.slice(plain.length - max)}`;
}
