/**
 * Redact, then cut. Text cut first and redacted after leaks: a registered secret that crosses the
 * cut is no longer the registered value, so redaction misses its front. Every preview of provider
 * or model text that reaches an event or an error is cut through {@link redactThenClip}.
 */

/**
 * How far past the kept part the text is redacted: a line or an output may be megabytes, and a
 * secret crossing the cut is far shorter than this.
 */
export const CLIP_SCAN_MARGIN = 64 * 1024;

/**
 * `text` redacted by `redact`, then cut to at most `max` characters, `marker` included, when the
 * redacted text is longer. Only the first `max + CLIP_SCAN_MARGIN` characters are redacted, unless
 * redaction shrinks them so much that what was beyond could reach the kept part: then all of it is.
 */
export function redactThenClip(text: string, redact: (text: string) => string, max: number, marker = "…"): string {
  let redacted: string;
  if (text.length <= max + CLIP_SCAN_MARGIN) redacted = redact(text);
  else {
    redacted = redact(text.slice(0, max + CLIP_SCAN_MARGIN));
    // The window's end may cut a secret, whose front then survives near the end of `redacted`:
    // harmless while that end stays half a margin past the kept part.
    if (redacted.length < max + CLIP_SCAN_MARGIN / 2) redacted = redact(text);
  }
  return redacted.length > max ? `${redacted.slice(0, Math.max(0, max - marker.length))}${marker}` : redacted;
}
