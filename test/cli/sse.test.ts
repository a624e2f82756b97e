/** The CLI's text/event-stream parser: frames however the bytes are split (WHATWG HTML, "Server-sent events"). */
import { describe, expect, it } from "vitest";
import { SseParser } from "../../src/cli/sse.js";

const STREAM = "retry: 2000\n\n: keep-alive\n\nid: 1\nevent: run.started\ndata: {\"a\":1}\n\nid: 2\nevent: message.delta\ndata: line one\ndata: line two\n\nevent: stream.error\ndata: {}\n\n";
const FRAMES = [
  { id: 1, event: "run.started", data: '{"a":1}' },
  { id: 2, event: "message.delta", data: "line one\nline two" },
  { event: "stream.error", data: "{}" },
];

describe("SseParser", () => {
  it("reads frames, skipping comments and retry-only blocks", () => {
    expect(new SseParser().push(STREAM)).toEqual(FRAMES);
  });

  it("gives the same frames for every split of the bytes, with LF, CRLF or CR line ends", () => {
    for (const ending of ["\n", "\r\n", "\r"]) {
      const text = STREAM.replace(/\n/g, ending);
      for (let cut = 0; cut <= text.length; cut++) {
        const parser = new SseParser();
        expect([...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))]).toEqual(FRAMES);
      }
    }
  });

  it("CRLF split between chunks, and across an empty chunk, is one line end", () => {
    const parser = new SseParser();
    expect([...parser.push("data: a\r"), ...parser.push(""), ...parser.push("\n"), ...parser.push("\n")]).toEqual([{ event: "message", data: "a" }]);
  });

  it("byte by byte; a frame is only complete at its blank line", () => {
    const parser = new SseParser();
    const frames = [];
    for (const char of STREAM) frames.push(...parser.push(char));
    expect(frames).toEqual(FRAMES);
    expect(new SseParser().push("id: 3\ndata: x\n")).toEqual([]);
  });

  it("an id that is not a sequence number is not one; `data:` without a space keeps its value", () => {
    expect(new SseParser().push("id: abc\ndata:x\n\n")).toEqual([{ event: "message", data: "x" }]);
  });
});
