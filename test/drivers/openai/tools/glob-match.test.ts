/** The glob matcher the glob and grep tools share. */
import { describe, expect, it } from "vitest";

import { compileGlob, expandBraces } from "../../../../src/drivers/openai/tools/glob-match.js";

const matches = (pattern: string, path: string): boolean => compileGlob(pattern).test(path);

describe("compileGlob", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/deep/a.ts", true],
    ["src/**", "src/a/b.txt", true],
    ["src/**/test/*.js", "src/test/x.js", true],
    ["src/**/test/*.js", "src/a/b/test/x.js", true],
    ["src/**/test/*.js", "src/a/b/tests/x.js", false],
    ["**", "a/b/c", true],
    ["a?c.md", "abc.md", true],
    ["a?c.md", "a/c.md", false],
    ["[ab].txt", "b.txt", true],
    ["[!ab].txt", "b.txt", false],
    ["[!ab].txt", "c.txt", true],
    ["*.{ts,tsx}", "x.tsx", true],
    ["{src,test}/**/*.ts", "test/a/b.ts", true],
    ["{src,test}/**/*.ts", "lib/a.ts", false],
    ["*", ".env", false],
    ["**/*", ".github/workflows/ci.yml", false],
    [".github/**/*.yml", ".github/workflows/ci.yml", true],
    ["**/.env", "config/.env", true],
    ["a.b", "axb", false],
    ["./src/*.ts", "src/a.ts", true],
    ["\\*.txt", "*.txt", true],
    ["\\*.txt", "a.txt", false],
  ])("%s ~ %s: %s", (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  it("expands nested braces and bounds the expansion", () => {
    expect(expandBraces("a{b,c{d,e}}f")).toEqual(["abf", "acdf", "acef"]);
    expect(() => expandBraces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toThrow(/more than 256/);
    expect(() => compileGlob("{a,b")).toThrow(/unclosed/);
  });
});
