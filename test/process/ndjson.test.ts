import fc from "fast-check";
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";

import { ProtocolError } from "../../src/errors/index.js";
import { NdjsonFramer, readJsonLines, writeJsonLine, type JsonLine } from "../../src/process/index.js";
import { readJsonLineBatches } from "../../src/process/ndjson.js";

async function collect(chunks: (string | Uint8Array)[], options: Parameters<typeof readJsonLines>[1] = {}): Promise<JsonLine[]> {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  stream.end();
  const out: JsonLine[] = [];
  for await (const item of readJsonLines(stream, options)) out.push(item);
  return out;
}

const values = (items: JsonLine[]): unknown[] => items.map((i) => (i.kind === "json" ? i.value : { error: i.error.code }));

describe("readJsonLines", () => {
  it("joins partial chunks, including a split multi-byte character", async () => {
    const bytes = Buffer.from('{"a":"héllo €"}\n{"b":2}\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the euro sign
    const items = await collect([bytes.subarray(0, 3), bytes.subarray(3, cut), bytes.subarray(cut)]);
    expect(values(items)).toEqual([{ a: "héllo €" }, { b: 2 }]);
  });

  it("accepts CRLF, skips blank lines, a BOM and reads a final unterminated line", async () => {
    const items = await collect(["\uFEFF[1]\r\n", "\r\n", "\n  \n", '"x"\r', "\n", "null\n", "42"]);
    expect(values(items)).toEqual([[1], "x", null, 42]);
  });

  it("reports a non-JSON line with a short redacted excerpt and continues", async () => {
    const long = `not json Bearer abcdef123456 ${"y".repeat(500)}`;
    const items = await collect([`${long}\n{"ok":true}\n`]);
    expect(items[0]).toMatchObject({ kind: "error", line: 1 });
    const first = items[0] as Extract<JsonLine, { kind: "error" }>;
    expect(first.error).toBeInstanceOf(ProtocolError);
    expect(first.error.code).toBe("invalid_json");
    // The token redacted, then the first 120 characters, and an ellipsis for the rest.
    expect(first.excerpt).toBe(`not json Bearer [REDACTED] ${"y".repeat(93)}…`);
    expect(first.error.message).not.toContain("not json");
    expect(items[1]).toEqual({ kind: "json", value: { ok: true } });
  });

  it("reports invalid UTF-8 for its line only", async () => {
    const bad = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    const items = await collect([Buffer.from("1\n"), bad, Buffer.from("2\n")]);
    expect(values(items)).toEqual([1, { error: "invalid_utf8" }, 2]);
    // The same when the bad line arrives in pieces.
    const pieces = await collect([bad.subarray(0, 7), bad.subarray(7), Buffer.from("3\n")]);
    expect(values(pieces)).toEqual([{ error: "invalid_utf8" }, 3]);
  });

  it("tells a genuine U+FFFD from invalid UTF-8 inside one chunk", () => {
    const framer = new NdjsonFramer();
    const out: JsonLine[] = [];
    const chunk = Buffer.concat([
      Buffer.from('{"a":"\uFFFD €"}\n'),
      Buffer.from('{"b":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n{"c":"ü"}\n'),
    ]);
    framer.push(chunk, out);
    expect(values(out)).toEqual([{ a: "\uFFFD €" }, { error: "invalid_utf8" }, { c: "ü" }]);
  });

  it("serves a chunk's lines as one batch, in the order readJsonLines serves them", async () => {
    const stream = new PassThrough();
    stream.end(Buffer.from('1\n{"x":"é"}\nnot json\n[2]\n3'));
    const batches: JsonLine[][] = [];
    for await (const batch of readJsonLineBatches(stream)) batches.push([...batch]);
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
    expect(values(batches.flat())).toEqual([1, { x: "é" }, { error: "invalid_json" }, [2], 3]);
    expect(batches[0]!.length).toBeGreaterThan(1);
  });

  it("rejects an oversized line early, discards its rest unbuffered and resumes", async () => {
    const framer = new NdjsonFramer({ maxLineBytes: 16 });
    const out: JsonLine[] = [];
    framer.push(Buffer.from('1\n"aaaaaaaaaa'), out);
    framer.push(Buffer.from("aaaaaaaaaaaaaa"), out); // crosses the limit: reported now
    expect(values(out)).toEqual([1, { error: "frame_too_large" }]);
    for (let i = 0; i < 100; i++) {
      framer.push(Buffer.alloc(1000, 0x61), out);
      expect(framer.bufferedBytes).toBe(0);
    }
    framer.push(Buffer.from('aaa"\n2\n'), out);
    framer.end(out);
    expect(values(out)).toEqual([1, { error: "frame_too_large" }, 2]);
  });

  it("accepts a line of exactly the limit, with or without CR", async () => {
    const line = `"${"b".repeat(14)}"`; // 16 bytes
    expect(values(await collect([`${line}\n${line}\r\n`], { maxLineBytes: 16 }))).toEqual(["b".repeat(14), "b".repeat(14)]);
    expect(values(await collect([`${line} \n7\n`], { maxLineBytes: 16 }))).toEqual([{ error: "frame_too_large" }, 7]);
    expect(values(await collect([`${"c".repeat(40)}\n8\n`], { maxLineBytes: 16 }))).toEqual([{ error: "frame_too_large" }, 8]);
  });

  it("destroys the source when the consumer stops early", async () => {
    const stream = new PassThrough();
    stream.write("1\n2\n3\n");
    for await (const item of readJsonLines(stream)) {
      expect(item).toEqual({ kind: "json", value: 1 });
      break;
    }
    expect(stream.destroyed).toBe(true);
  });

  it("ends when its signal aborts, even while waiting for data", async () => {
    const stream = new PassThrough();
    const ac = new AbortController();
    const seen: unknown[] = [];
    const done = (async () => {
      for await (const item of readJsonLines(stream, { signal: ac.signal })) {
        seen.push(item.kind === "json" ? item.value : item.kind);
        if (seen.length === 1) ac.abort();
      }
    })();
    stream.write("1\n");
    await done;
    expect(seen).toEqual([1]);
    expect(stream.destroyed).toBe(true);
  });

  it("rethrows a failure of the source", async () => {
    const stream = new PassThrough();
    stream.write("1\n");
    const seen: unknown[] = [];
    const run = (async () => {
      for await (const item of readJsonLines(stream)) {
        seen.push(item);
        stream.destroy(new Error("boom"));
      }
    })();
    await expect(run).rejects.toThrow("boom");
    expect(seen).toHaveLength(1);
  });

  it("property: any split of a valid NDJSON stream yields the same values", async () => {
    const jsonValue = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(jsonValue, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (entries, cutSeeds) => {
          // Random CRLF endings and blank lines in between must not matter.
          const text = entries.map(([v, crlf, blank]) => `${JSON.stringify(v)}${crlf ? "\r\n" : "\n"}${blank ? "\n" : ""}`).join("");
          const bytes = Buffer.from(text);
          const cuts = [...new Set(cutSeeds.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let at = 0;
          for (const cut of [...cuts, bytes.length]) {
            chunks.push(bytes.subarray(at, cut));
            at = cut;
          }
          const items = await collect(chunks.filter((c) => c.length > 0));
          expect(values(items)).toEqual(entries.map(([v]) => v));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("writeJsonLine", () => {
  it("writes one line per value and waits for drain under backpressure", async () => {
    const written: string[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _enc, callback) {
        written.push(chunk.toString());
        release = callback;
      },
    });
    let settled = false;
    const pending = writeJsonLine(slow, { text: "a line longer than the high water mark" }).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release!();
    await pending;
    expect(written).toEqual(['{"text":"a line longer than the high water mark"}\n']);
  });

  it("rejects with peer_exited when the stream is closed", async () => {
    const closed = new PassThrough();
    closed.destroy();
    await expect(writeJsonLine(closed, 1)).rejects.toMatchObject({ code: "peer_exited" });

    let release: (() => void) | undefined;
    const stuck = new Writable({ highWaterMark: 1, write: (_c, _e, callback) => (release = callback) });
    const pending = writeJsonLine(stuck, "x");
    stuck.destroy();
    await expect(pending).rejects.toMatchObject({ code: "peer_exited" });
    // The line reached the sink (its write callback was taken) before the stream was destroyed.
    expect(release).toBeTypeOf("function");
  });
});
