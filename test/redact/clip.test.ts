/**
 * Redact, then cut: a registered secret across the cut leaves no part of itself, however long
 * the text and however much redaction shrinks it.
 */
import { describe, expect, it } from "vitest";
import { CLIP_SCAN_MARGIN, redactThenClip } from "../../src/redact/clip.js";
import { createRedactor, REDACTED } from "../../src/redact/redact.js";

/** A key of no recognisable shape: only its registration redacts it. */
const KEY = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";
const redactor = createRedactor({ secrets: [KEY] });
const redact = (text: string) => redactor.redactText(text);

describe("redactThenClip", () => {
  it("keeps a text within the bound whole, redacted", () => {
    expect(redactThenClip(`a ${KEY} b`, redact, 100)).toBe(`a ${REDACTED} b`);
    expect(redactThenClip("x".repeat(10), redact, 10)).toBe("x".repeat(10));
  });

  it("cuts to the bound, marker included, after redacting a key that crosses the cut", () => {
    const text = `${"y".repeat(90)}${KEY} and more`;
    const out = redactThenClip(text, redact, 100);
    expect(out).toBe(`${"y".repeat(90)}${REDACTED.slice(0, 9)}…`);
    expect(out).not.toContain(KEY.slice(0, 8));
    expect(redactThenClip(text, redact, 100, "\n[cut]")).toBe(`${"y".repeat(90)}${REDACTED.slice(0, 4)}\n[cut]`);
  });

  it("redacts all of a long text when redaction shrinks the scanned part so far that its end reaches the kept part", () => {
    // Long secrets: the scanned window ends inside the third, whose front would follow two placeholders.
    const big = "Q".repeat(CLIP_SCAN_MARGIN / 2 - 1000);
    const text = big.repeat(3);
    const out = redactThenClip(text, createRedactor({ secrets: [big] }).redactText, 100);
    expect(out).toBe(REDACTED.repeat(3));
  });

  it("redacts only the window of a long text that redaction barely shrinks", () => {
    let calls = 0;
    const counting = (text: string) => {
      calls++;
      expect(text.length).toBeLessThanOrEqual(100 + CLIP_SCAN_MARGIN);
      return redact(text);
    };
    const out = redactThenClip(`${"y".repeat(95)}${KEY}${"z".repeat(10 * CLIP_SCAN_MARGIN)}`, counting, 100);
    expect(calls).toBe(1);
    expect(out).toBe(`${"y".repeat(95)}${REDACTED.slice(0, 4)}…`);
  });
});
