/** Unified diffs of one file: headers per change kind, hunks, and the bounded cap with its marker. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capDiff, fileChange, unifiedFileDiff } from "../../../src/driver/kit/diff.js";

describe("unifiedFileDiff", () => {
  it("diffs a modified file with a/ b/ headers and a hunk", () => {
    const diff = unifiedFileDiff("src/a.txt", "one\ntwo\nthree\n", "one\n2\nthree\n");
    expect(diff.split("\n").slice(0, 3)).toEqual(["--- a/src/a.txt", "+++ b/src/a.txt", "@@ -1,3 +1,3 @@"]);
    expect(diff).toContain("\n-two\n+2\n");
  });

  it("writes an absolute path with one slash after the prefix, as git does", () => {
    expect(unifiedFileDiff("/w/a.txt", "x\n", "y\n").split("\n").slice(0, 2)).toEqual(["--- a/w/a.txt", "+++ b/w/a.txt"]);
  });

  it("names /dev/null for the missing side of an added or deleted file", () => {
    expect(fileChange("n.txt", undefined, "hi\n")).toMatchObject({ path: "n.txt", change: "added" });
    expect(unifiedFileDiff("n.txt", undefined, "hi\n")).toMatch(/^--- \/dev\/null\n\+\+\+ b\/n\.txt\n@@ -0,0 \+1(,1)? @@\n\+hi\n/);
    const deleted = fileChange("d.txt", "bye\n", undefined);
    expect(deleted.change).toBe("deleted");
    expect(deleted.diff).toMatch(/^--- a\/d\.txt\n\+\+\+ \/dev\/null\n/);
  });

  it("caps a large diff at a line boundary and says how much was left out", () => {
    const after = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
    const diff = unifiedFileDiff("big.txt", undefined, after, { maxBytes: 1024 });
    expect(Buffer.byteLength(diff)).toBeLessThan(1024 + 64);
    expect(diff).toMatch(/\n\\ diff truncated: \d+ bytes omitted\n$/);
  });
});

describe("capDiff", () => {
  it("keeps a diff that fits unchanged", () => {
    expect(capDiff("--- a/x\n+++ b/x\n", 100)).toBe("--- a/x\n+++ b/x\n");
  });

  it("never exceeds the cap by more than the marker and never splits a character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 1, max: 300 }), (text, max) => {
        const capped = capDiff(text, max);
        if (Buffer.byteLength(text) <= max) return capped === text;
        const at = capped.lastIndexOf("\\ diff truncated");
        const kept = capped.slice(0, at);
        const omitted = Number(/(\d+) bytes omitted\n$/.exec(capped.slice(at))?.[1]);
        return text.startsWith(kept) && Buffer.byteLength(kept) <= max && Buffer.byteLength(kept) + omitted === Buffer.byteLength(text);
      }),
    );
  });
});
