import { describe, expect, it } from "vitest";
import { SseParser } from "../../../console/src/sse-parser.js";
import { commentFrame, eventFrame, retryFrame } from "../../../src/bridges/sse/frames.js";

describe("console SSE parser", () => {
  it("reads the frames the SSE bridge writes, multi-line data joined, heartbeats ignored", () => {
    const text = retryFrame(2000) + eventFrame({ id: "1", event: "message.delta", data: '{"a":1}' }) + commentFrame("keep-alive") + eventFrame({ id: "2", event: "notice", data: "line one\nline two" });
    const parser = new SseParser();
    expect(parser.push(text)).toEqual([
      { id: "1", event: "message.delta", data: '{"a":1}' },
      { id: "2", event: "notice", data: "line one\nline two" },
    ]);
    expect(parser.retryMs).toBe(2000);
  });

  it("gives the same frames whatever the chunking, CRLF split across chunks included", () => {
    const text = "id: 7\r\nevent: run.started\r\ndata: {\"x\":\"é\"}\r\n\r\n: hb\r\n\r\nid: 8\rdata: b\r\rdata:no-space\n\n";
    const expected = [
      { id: "7", event: "run.started", data: '{"x":"é"}' },
      { id: "8", event: "message", data: "b" },
      { event: "message", data: "no-space" },
    ];
    for (let size = 1; size <= text.length; size++) {
      const parser = new SseParser();
      const frames = [];
      for (let i = 0; i < text.length; i += size) frames.push(...parser.push(text.slice(i, i + size)));
      expect(frames, `chunk size ${size}`).toEqual(expected);
    }
  });

  it("keeps an unfinished frame until its blank line arrives, and drops frames without data", () => {
    const parser = new SseParser();
    expect(parser.push("id: 3\nevent: x\ndata: partial")).toEqual([]);
    expect(parser.push("\n")).toEqual([]);
    expect(parser.push("\n")).toEqual([{ id: "3", event: "x", data: "partial" }]);
    expect(parser.push("id: 4\nevent: y\n\n")).toEqual([]);
  });

  it("ignores an id holding NUL and a non-numeric retry, as the spec says", () => {
    const parser = new SseParser();
    expect(parser.push("id: a\0b\nretry: soon\ndata: d\n\n")).toEqual([{ event: "message", data: "d" }]);
    expect(parser.retryMs).toBeUndefined();
  });
});
