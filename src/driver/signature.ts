/**
 * Deterministic compatibility signatures: a sha256 over a canonical JSON encoding (sorted keys,
 * functions and undefined omitted), so equal settings always key the same standby.
 */
import { createHash } from "node:crypto";

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || value === undefined ? "null" : JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.keys(value)
    .filter((key) => {
      const v = (value as Record<string, unknown>)[key];
      return v !== undefined && typeof v !== "function";
    })
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(",")}}`;
}

export function signatureOf(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}
