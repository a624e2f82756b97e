/**
 * `hidePaths`: every absolute path in a text reads `<path>`, and the punctuation right after a
 * path (`/a/b: x`, `/a, /b.`, `(in /a)`) stays, since it belongs to the sentence. A property:
 * any text with an absolute path put in it never holds the path afterwards, and the text around
 * it, punctuation included, is what it was.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hidePaths, PATH_PLACEHOLDER as P } from "../../src/redact/hide-paths.js";

describe("hidePaths keeps the punctuation after a path", () => {
  it("a colon, a comma, a full stop, a semicolon or a closing bracket right after a path stays", () => {
    expect(hidePaths("/a/b: x")).toBe(`${P}: x`);
    expect(hidePaths("cannot write /srv/ws/out.txt: permission denied")).toBe(`cannot write ${P}: permission denied`);
    expect(hidePaths("tried /usr/bin/codex, ~/bin/codex and C:\\tools\\codex.exe.")).toBe(`tried ${P}, ${P} and ${P}.`);
    expect(hidePaths("(in /srv/ws); retry")).toBe(`(in ${P}); retry`);
    expect(hidePaths("\\\\server\\share\\ws: gone")).toBe(`${P}: gone`);
    expect(hidePaths("read file:///etc/passwd, then stopped")).toBe(`read ${P}, then stopped`);
    expect(hidePaths("the workspace /home/me/project/: not a directory")).toBe(`the workspace ${P}: not a directory`);
    expect(hidePaths("at /srv/ws/x.ts:12:5")).toBe(`at ${P}`);
  });

  it("punctuation inside a path is the path's; a bare root with punctuation after it is no path", () => {
    expect(hidePaths("PATH=/usr/bin:/bin is searched")).toBe(`PATH=${P} is searched`);
    expect(hidePaths("/srv/a,b/c failed")).toBe(`${P} failed`);
    expect(hidePaths("mounted on /: ok")).toBe("mounted on /: ok");
  });
});

/** A path segment: ends with a letter or digit, so none of its own characters are trailing punctuation. */
const segment = fc.stringMatching(/^[A-Za-z0-9._-]{0,8}[A-Za-z0-9]$/);
const segments = fc.array(segment, { minLength: 1, maxLength: 5 });

/** Absolute paths of every form the pattern knows. */
const absolutePath = fc.oneof(
  segments.map((s) => `/${s.join("/")}`),
  segments.map((s) => `~/${s.join("/")}`),
  fc.tuple(fc.constantFrom("C", "d", "Z"), fc.constantFrom("\\", "/"), segments).map(([drive, sep, s]) => `${drive}:${sep}${s.join(sep)}`),
  fc.tuple(segment, segments).map(([server, s]) => `\\\\${server}\\${s.join("\\")}`),
  segments.map((s) => `file:///${s.join("/")}`),
);

/** Text without slashes or backslashes: it holds no path of its own. */
const plainText = fc.stringMatching(/^[A-Za-z0-9 .,:;!?()'"-]{0,30}$/);

describe("hidePaths, property", () => {
  it("a path put anywhere in plain text (after a space or at the start) is hidden; the text and the punctuation after it are kept", () => {
    fc.assert(
      fc.property(plainText, absolutePath, fc.constantFrom("", ":", ",", ".", ";", ")", ":,", ")."), fc.constantFrom(" ", ""), plainText, (before, path, punctuation, gap, after) => {
        const lead = before === "" ? "" : `${before} `;
        // Without a gap, what follows the punctuation must not continue the path: end the text there.
        const tail = gap === "" ? "" : `${gap}${after}`;
        const hidden = hidePaths(`${lead}${path}${punctuation}${tail}`);
        expect(hidden).not.toContain(path);
        expect(hidden).toBe(`${lead}${P}${punctuation}${tail}`);
      }),
      { numRuns: 500, seed: 20261206 },
    );
  });
});
