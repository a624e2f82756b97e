/**
 * Sanitized input names. The name a driver sees (and the materialized file's basename after its
 * index prefix) has no path separators, no control or invisible formatting characters, no leading
 * dots, and at most {@link MAX_NAME_BYTES} UTF-8 bytes; a short alphanumeric extension is kept.
 */

/** Upper bound of a sanitized name in UTF-8 bytes (file systems allow 255 per component). */
export const MAX_NAME_BYTES = 120;

const FALLBACK = "input";
const MAX_EXTENSION_CHARS = 16;

// C0/C1 controls, DEL, bidi and zero-width formatting, line/paragraph separators, BOM.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;
// Separators and characters that are reserved in file names on common platforms.
const RESERVED = /[/\\:*?"<>|]/g;

/** A name safe to use as a file's basename and to show to a driver. Never empty. */
export function sanitizeName(raw: string): string {
  let name = raw.normalize("NFC").replace(/[\t\n\v\f\r]/g, " ").replace(INVISIBLE, "").replace(RESERVED, "_").replace(/\s+/g, " ").trim();
  name = name.replace(/^[.\s]+/, "").replace(/[.\s]+$/, "");
  if (name.length === 0) return FALLBACK;

  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot) : "";
  const keepExtension = extension.length >= 2 && extension.length <= MAX_EXTENSION_CHARS + 1 && /^\.[A-Za-z0-9]+$/.test(extension);
  const stem = keepExtension ? name.slice(0, dot) : name;
  const suffix = keepExtension ? extension : "";
  const budget = MAX_NAME_BYTES - Buffer.byteLength(suffix);
  const truncated = truncateUtf8(stem, budget).replace(/[.\s]+$/, "");
  return `${truncated.length > 0 ? truncated : FALLBACK}${suffix}`;
}

/** The longest prefix of `text`, whole code points only, that fits in `maxBytes` UTF-8 bytes. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let out = "";
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    out += char;
  }
  return out;
}
