/**
 * Media types of per-run inputs: syntax, pattern matching against a driver's declared patterns,
 * inference from a file-name extension, and a content check for the formats whose signature is
 * unambiguous (PNG, JPEG, GIF, WebP, PDF).
 *
 * Media types are essences only (`type/subtype`, lower-cased); parameters such as `; charset=`
 * are refused, so what a driver receives is exactly what it matched.
 */
import type { InputKind } from "./kinds.js";

// RFC 6838 restricted-name: a letter or digit, then up to 126 of these.
const NAME = "[a-z0-9][a-z0-9!#$&^_.+-]{0,126}";
const MEDIA_TYPE = new RegExp(`^${NAME}/${NAME}$`);
const PATTERN = new RegExp(`^(?:\\*/\\*|${NAME}/\\*|${NAME}/${NAME})$`);

/** The normalized (lower-cased) media type, or undefined when `value` is not `type/subtype`. */
export function normalizeMediaType(value: string): string | undefined {
  const lower = value.trim().toLowerCase();
  return MEDIA_TYPE.test(lower) ? lower : undefined;
}

/** Whether `pattern` is `*\/*`, `type/*` or `type/subtype`. */
export function isMediaTypePattern(pattern: string): boolean {
  return PATTERN.test(pattern.trim().toLowerCase());
}

/** Whether a normalized media type matches a pattern such as `image/*`, `*\/*` or `application/pdf`. */
export function mediaTypeMatches(mediaType: string, pattern: string): boolean {
  const p = pattern.trim().toLowerCase();
  if (p === "*/*") return true;
  if (p.endsWith("/*")) return mediaType.startsWith(p.slice(0, -1));
  return mediaType === p;
}

/**
 * Extensions this package infers a media type from. Anything else needs an explicit `mediaType`.
 * `.webm` and `.ogg` are taken as audio: these inputs are images, files and audio, never video.
 */
export const MEDIA_TYPES_BY_EXTENSION: Readonly<Record<string, string>> = Object.freeze({
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  json: "application/json",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  m4a: "audio/mp4",
  flac: "audio/flac",
  webm: "audio/webm",
});

/** The media type for a file name's extension, or undefined when the extension is not in the table. */
export function inferMediaType(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  if (dot < 0 || dot === name.length - 1) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(MEDIA_TYPES_BY_EXTENSION, extension) ? MEDIA_TYPES_BY_EXTENSION[extension] : undefined;
}

/** Whether a media type fits a kind: images are `image/*`, audio is `audio/*`, a file is anything. */
export function mediaTypeFitsKind(kind: InputKind, mediaType: string): boolean {
  if (kind === "image") return mediaType.startsWith("image/");
  if (kind === "audio") return mediaType.startsWith("audio/");
  return true;
}

interface Signature {
  /** Bytes of content needed to decide. */
  needs: number;
  matches(head: Uint8Array): boolean;
}

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0): boolean =>
  head.length >= at + bytes.length && bytes.every((byte, i) => head[at + i] === byte);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

const PDF_MARKER = Buffer.from("%PDF-", "latin1");

const SIGNATURES: Readonly<Record<string, Signature>> = {
  "image/png": { needs: 8, matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  "image/jpeg": { needs: 3, matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  "image/gif": { needs: 6, matches: (h) => startsWith(h, ascii("GIF87a")) || startsWith(h, ascii("GIF89a")) },
  "image/webp": { needs: 12, matches: (h) => startsWith(h, ascii("RIFF")) && startsWith(h, ascii("WEBP"), 8) },
  // Readers accept the header anywhere in the first KiB.
  "application/pdf": { needs: 1024, matches: (h) => Buffer.from(h.buffer, h.byteOffset, h.byteLength).indexOf(PDF_MARKER) >= 0 },
};

/** How many leading bytes {@link contentMatchesMediaType} needs for this media type (0 = not checked). */
export function signatureBytesNeeded(mediaType: string): number {
  return SIGNATURES[mediaType]?.needs ?? 0;
}

/**
 * Whether the content's first bytes (up to {@link signatureBytesNeeded}, fewer when the content
 * is shorter) are consistent with the media type. Types without a known signature always match.
 */
export function contentMatchesMediaType(mediaType: string, head: Uint8Array): boolean {
  const signature = SIGNATURES[mediaType];
  return signature === undefined || signature.matches(head);
}
