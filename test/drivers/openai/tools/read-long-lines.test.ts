/**
 * read on files with long lines: a line is read in chunks with only its head kept (a file of one
 * huge line is never held whole), split exactly as node's readline splits lines, and the result
 * says where a line was cut.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createInterface } from "node:readline";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { LineSplitter, type LineHead } from "../../../../src/drivers/openai/tools/line-splitter.js";
import { MAX_LINE_CHARS, readTool } from "../../../../src/drivers/openai/tools/read.js";
import { call, sandbox } from "./helpers.js";

/** The lines readline gives for `bytes` (as read() did before). */
async function readlineLines(bytes: Buffer): Promise<string[]> {
  const lines: string[] = [];
  const input = Readable.from([bytes]).setEncoding("utf8");
  for await (const line of createInterface({ input, crlfDelay: Infinity })) lines.push(line);
  return lines;
}

/** The splitter's lines for `bytes` fed in the given chunks. */
function splitLines(bytes: Buffer, cuts: number[], keepBytes: number): LineHead[] {
  const splitter = new LineSplitter(keepBytes);
  const lines: LineHead[] = [];
  const take = (line: LineHead): boolean => {
    lines.push(line);
    return false;
  };
  let from = 0;
  for (const at of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b).concat(bytes.length)) {
    splitter.push(bytes.subarray(from, at), take);
    from = at;
  }
  splitter.end(take);
  return lines;
}

const piece = fc.constantFrom("a", "b", "é", "€", "😀", "\uFEFF", "\n", "\r\n", "\r", "\n\n", " ");

describe("LineSplitter", () => {
  it("gives the lines readline gives, however the bytes are chunked", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(400), { maxLength: 8 }), async (pieces, cuts) => {
        const bytes = Buffer.from(pieces.join(""), "utf8");
        const expected = await readlineLines(bytes);
        const got = splitLines(bytes, cuts, 1 << 20);
        expect(got.map((l) => l.head)).toEqual(expected);
        expect(got.map((l) => l.bytes)).toEqual(expected.map((l) => Buffer.byteLength(l)));
        expect(got.every((l) => l.whole)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps only a line's head, however long the line", () => {
    const line = Buffer.alloc(8 * 1024 * 1024, "x");
    const cuts = Array.from({ length: 40 }, (_, i) => i * 200_003);
    const [only, ...rest] = splitLines(Buffer.concat([line, Buffer.from("\nnext")]), cuts, 100);
    expect(only).toEqual({ head: "x".repeat(100), bytes: line.length, whole: false });
    expect(rest).toEqual([{ head: "next", bytes: 4, whole: true }]);
  });
});

describe("read on long lines", () => {
  it("cuts a single-line file far over the cap at its head, saying the line was cut and how long it is", async () => {
    const { workspace } = await sandbox();
    const size = 16 * 1024 * 1024;
    // Minified JSON: no line end at all.
    await writeFile(join(workspace, "min.json"), Buffer.alloc(size, "{"));
    const out = await call(readTool, workspace, { path: "min.json" });
    expect(out.isError).toBe(false);
    expect(out.output).toBe(`     1\t${"{".repeat(MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters: the line is ${size} bytes]`);
  });

  it("numbers and shows the lines after a huge one, and continues past it with offset", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "mixed.txt"), `${"y".repeat(3 * 1024 * 1024)}\r\nsecond\rthird\n`);
    const all = await call(readTool, workspace, { path: "mixed.txt" });
    expect(all.output.split("\n").slice(1)).toEqual(["     2\tsecond", "     3\tthird"]);
    expect(await call(readTool, workspace, { path: "mixed.txt", offset: 3 })).toMatchObject({ output: "     3\tthird", isError: false });
    // A huge line after the last one shown is not needed to say more lines follow.
    await writeFile(join(workspace, "then-huge.txt"), `one\ntwo\n${"z".repeat(4 * 1024 * 1024)}`);
    const first = await call(readTool, workspace, { path: "then-huge.txt", limit: 2 });
    expect(first.output).toBe("     1\tone\n     2\ttwo\n[limit of 2 lines reached: showing lines 1-2; more lines follow, read again with offset=3 to continue]");
  });

  it("cuts a line of multibyte characters on a character, never into a replacement character", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "wide.txt"), `${"é😀".repeat(40_000)}\n`);
    const out = await call(readTool, workspace, { path: "wide.txt" });
    const shown = out.output.slice("     1\t".length, out.output.indexOf("…"));
    expect(shown).toHaveLength(MAX_LINE_CHARS);
    expect(shown).toBe("é😀".repeat(40_000).slice(0, MAX_LINE_CHARS));
    expect(shown).not.toContain("\uFFFD");
  });

  it("never publishes the front of a secret the head cut, when redaction shrinks a line longer than the head", async () => {
    const { workspace } = await sandbox();
    const secret = `sk-${"q".repeat(40)}`;
    // Longer than the head read for redaction, so the head ends inside some secret.
    await writeFile(join(workspace, "keys.txt"), `${`${secret} `.repeat(6000)}\n`);
    const out = await call(readTool, workspace, { path: "keys.txt" }, { redact: (text) => text.replaceAll(secret, "[R]") });
    expect(out.published).toBeDefined();
    expect(out.published).toContain("line cut at");
    expect(out.published).not.toContain("sk-q");
    expect(out.published!.length).toBeLessThan(MAX_LINE_CHARS + 200);
  });
});
