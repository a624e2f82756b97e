/**
 * The driver reads streamed answers from the response body itself (wire/event-stream.ts); what it
 * hands on must be what the official client's `Stream` gives for the same body, chunked anyhow:
 * the same payloads in the same order, the same error, nothing more delivered before a body that
 * breaks off, the body cancelled when the reader stops early. Checked against that `Stream` on
 * generated bodies (every line end, comments, multi-line data, `event:` lines, `[DONE]`, error
 * payloads, unparsable data, byte order marks, multi-byte characters split across chunks).
 */
import fc from "fast-check";
import OpenAI from "openai";
import { Stream } from "openai/streaming";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readEventStream } from "../../../src/drivers/openai/wire/event-stream.js";
import { SseDecoder, type SseMessage } from "../../../src/drivers/openai/wire/sse.js";

const SEED = 0x55e_d0de;
/** What was logged: through the client's logger, and (for `thread.*` messages) to the console. */
let logged: unknown[][] = [];
const logger = { error: (...args: unknown[]) => void logged.push(["logger", ...args]), warn: () => {}, info: () => {}, debug: () => {} };
const client = new OpenAI({ apiKey: "test", baseURL: "http://127.0.0.1:9/v1", logLevel: "error", logger });
const encoder = new TextEncoder();

/** How the body ends after its last chunk. */
type Ending = "end" | "break" | "abort";

/** A body of `chunks`, then its end, a broken connection, or an abort. `cancelled` tells whether the reader cancelled it. */
function bodyOf(chunks: readonly Uint8Array[], ending: Ending): { response: Response; cancelled: () => boolean } {
  let next = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else if (ending === "end") controller.close();
      else controller.error(ending === "break" ? new TypeError("terminated") : new DOMException("This operation was aborted", "AbortError"));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { "x-request-id": "req_1" } }), cancelled: () => cancelled };
}

interface Outcome {
  payloads: unknown[];
  error?: string;
  logged: unknown[][];
}

function described(error: unknown): string {
  if (!(error instanceof Error)) return `non-error ${String(error)}`;
  const status = (error as { status?: unknown }).status;
  return `${error.constructor.name}: ${error.message}${status !== undefined ? ` (${String(status)})` : ""}`;
}

/** The official client's `Stream` over the body (its `thread.*` wrappers left out: this driver reads none). */
async function official(chunks: readonly Uint8Array[], ending: Ending): Promise<Outcome> {
  const payloads: unknown[] = [];
  logged = [];
  try {
    for await (const item of Stream.fromSSEResponse<unknown>(bodyOf(chunks, ending).response, new AbortController(), client)) {
      const wrapped = item as { event?: unknown } | null;
      if (typeof wrapped === "object" && wrapped !== null && typeof wrapped.event === "string" && wrapped.event.startsWith("thread.")) continue;
      payloads.push(item);
    }
    return { payloads, logged };
  } catch (error) {
    return { payloads, error: described(error), logged };
  }
}

async function ours(chunks: readonly Uint8Array[], ending: Ending): Promise<Outcome> {
  const payloads: unknown[] = [];
  logged = [];
  try {
    await readEventStream(bodyOf(chunks, ending).response, client, (payload) => {
      payloads.push(payload);
      return undefined;
    });
    return { payloads, logged };
  } catch (error) {
    return { payloads, error: described(error), logged };
  }
}

/** `bytes` cut at the given offsets (sorted, deduplicated; any byte, inside a character too). */
function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const at = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  return chunks;
}

const TEXT = fc.constantFrom("a", "é", "€", "😀", "\uFEFF", " ", ":", '"', "\\n");
const json = fc.record({ n: fc.nat(99), s: fc.array(TEXT, { maxLength: 4 }).map((parts) => parts.join("")) }).map((value) => JSON.stringify(value));
const line = fc.oneof(
  { weight: 6, arbitrary: json.map((j) => `data: ${j}`) },
  { weight: 1, arbitrary: json.map((j) => `data:${j}`) },
  { weight: 1, arbitrary: json.map((j) => `\uFEFFdata: ${j}`) },
  // A JSON value over two data lines: it parses once they join with "\n".
  { weight: 1, arbitrary: fc.constant('data: {"split":\ndata: true}') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "data",
      "data:",
      "data: [DONE]",
      "data: [DONE] and more",
      'data: {"error":{"message":"overloaded","type":"server_error"}}',
      'data: {"error":null,"ok":1}',
      "data: {cut",
      "data: 7",
      "data: null",
      "event: response.output_text.delta",
      "event: thread.run.created",
      "event: error",
      "event:",
      "event",
      ": keep-alive",
      ":",
      "id: 3",
      "retry: 100",
      "noise",
      "",
    ),
  },
);
const lineEnd = fc.constantFrom("\n", "\n", "\n", "\r\n", "\r");
const body = fc.array(fc.tuple(line, lineEnd, fc.boolean()), { maxLength: 14 }).map((lines) => lines.map(([l, end, blank]) => `${l}${end}${blank ? end : ""}`).join(""));
const ending = fc.constantFrom<Ending>("end", "end", "break", "abort");

describe("openai driver: reading a streamed answer", () => {
  beforeEach(() => {
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(["console", ...args]));
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("gives what the official client's Stream gives, for any body chunked anyhow", async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.array(fc.nat(), { maxLength: 8 }), ending, async (text, offsets, end) => {
        const chunks = cut(encoder.encode(text), offsets);
        expect(await ours(chunks, end)).toEqual(await official(chunks, end));
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  it("splits messages the same whole or chunked", () => {
    const all = (pieces: readonly string[]): SseMessage[] => {
      const decoder = new SseDecoder();
      const out: SseMessage[] = [];
      const drain = () => {
        for (let m = decoder.next(); m !== undefined; m = decoder.next()) out.push(m);
      };
      for (const piece of pieces) {
        decoder.push(piece);
        drain();
      }
      decoder.end();
      drain();
      return out;
    };
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 8 }), (text, offsets) => {
        const at = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
        const pieces = [...at, text.length].map((to, i) => text.slice(i === 0 ? 0 : at[i - 1], to));
        expect(all(pieces)).toEqual(all([text]));
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  it("turns an error payload into the client's APIError with the response's headers", async () => {
    const { response } = bodyOf([encoder.encode('data: {"n":1}\n\ndata: {"error":{"message":"quota","code":"insufficient_quota"}}\n\n')], "end");
    const payloads: unknown[] = [];
    const failure = await readEventStream(response, client, (p) => void payloads.push(p)).catch((error: unknown) => error);
    expect(payloads).toEqual([{ n: 1 }]);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ message: "quota", code: "insufficient_quota", status: undefined, requestID: "req_1" });
  });

  it("cancels the body when the reader stops early, and not after [DONE] or the end", async () => {
    const events = encoder.encode('data: {"n":1}\n\ndata: {"n":2}\n\n');
    const early = bodyOf([events], "end");
    const refused = new Error("refused");
    await expect(
      readEventStream(early.response, client, () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(early.cancelled()).toBe(true);

    const afterDone = bodyOf([encoder.encode('data: {"n":1}\n\ndata: [DONE]\n\n')], "end");
    await readEventStream(afterDone.response, client, () => undefined);
    expect(afterDone.cancelled()).toBe(false);
  });

  it("waits for each payload's promise before reading the next", async () => {
    const order: string[] = [];
    const { response } = bodyOf([encoder.encode('data: {"n":1}\n\ndata: {"n":2}\n\n')], "end");
    await readEventStream(response, client, (p) => {
      const n = (p as { n: number }).n;
      order.push(`take ${n}`);
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          order.push(`done ${n}`);
          resolve();
        }),
      );
    });
    expect(order).toEqual(["take 1", "done 1", "take 2", "done 2"]);
  });

  it("fails a stream that sends more than its bound without ending a message, and cancels the body", async () => {
    const taken: unknown[] = [];
    // An endless data line: one message, then chunks that never reach a blank line.
    const endless = bodyOf([encoder.encode('data: {"n":1}\n\n'), ...Array.from({ length: 8 }, () => encoder.encode("data: " + "x".repeat(1_000)))], "end");
    const failure = await readEventStream(endless.response, client, (p) => void taken.push(p), 4_000).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "malformed_response", retryable: false });
    expect((failure as Error).message).toMatch(/more than 4000 characters without ending an event/);
    expect(taken).toEqual([{ n: 1 }]);
    expect(endless.cancelled()).toBe(true);

    // Messages that end within the bound pass, however many there are.
    const many = bodyOf(Array.from({ length: 8 }, (_, n) => encoder.encode(`data: {"n":${n},"pad":"${"y".repeat(1_000)}"}\n\n`)), "end");
    let count = 0;
    await readEventStream(many.response, client, () => void count++, 4_000);
    expect(count).toBe(8);
  });

  it("refuses a response without a body as the client does", async () => {
    const failure = await readEventStream(new Response(null), client, () => undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.OpenAIError);
    expect((failure as Error).message).toBe("Attempted to iterate over a response with no body");
  });
});
