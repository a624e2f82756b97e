import { describe, expect, it } from "vitest";
import { diffStat, parseUnifiedDiff } from "../../../console/src/diff.js";

describe("console diff rendering", () => {
  it("classifies headers, hunks, added, removed, context and notes", () => {
    const diff = [
      "--- a/hello.txt",
      "+++ b/hello.txt",
      "@@ -1,3 +1,3 @@",
      " keep",
      "-old",
      "+new",
      "--- a removed line starting with two dashes",
      "+++ an added line starting with two pluses",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    const lines = parseUnifiedDiff(diff);
    expect(lines.map((l) => l.kind)).toEqual(["meta", "meta", "hunk", "ctx", "del", "add", "del", "add", "note"]);
    expect(lines[4]!.text).toBe("-old");
    expect(diffStat(lines)).toEqual({ added: 2, removed: 2 });
  });

  it("reads a new file's diff, CRLF line ends and the library's truncation marker", () => {
    const diff = "--- /dev/null\r\n+++ b/new.txt\r\n@@ -0,0 +1,2 @@\r\n+one\r\n+two\r\n\\ diff truncated: 120 bytes omitted\r\n";
    expect(parseUnifiedDiff(diff)).toEqual([
      { kind: "meta", text: "--- /dev/null" },
      { kind: "meta", text: "+++ b/new.txt" },
      { kind: "hunk", text: "@@ -0,0 +1,2 @@" },
      { kind: "add", text: "+one" },
      { kind: "add", text: "+two" },
      { kind: "note", text: "\\ diff truncated: 120 bytes omitted" },
    ]);
  });

  it("starts a new file's headers after a 'diff' line", () => {
    const diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/z b/z\n--- a/z\n+++ b/z\n@@ -1 +1 @@\n-z\n+w\n";
    expect(parseUnifiedDiff(diff).map((l) => l.kind)).toEqual(["meta", "meta", "meta", "hunk", "del", "add", "meta", "meta", "meta", "hunk", "del", "add"]);
  });

  it("gives nothing for an empty diff", () => {
    expect(parseUnifiedDiff("")).toEqual([]);
  });
});
