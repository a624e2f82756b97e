/**
 * Fuzzing of every frame parser and mapper with fast-check: the NDJSON framer and reader, the
 * Codex notification mapper, the stream-json message mapper and the ACP session-update mapper.
 * Frames are arbitrary bytes, arbitrary JSON, and plausible protocol messages with unknown fields,
 * wrong types, truncation, duplicates and random order. Whatever arrives: nothing throws out of a
 * parser or mapper, a mapper never emits a terminal event (only the driver ends a run), every event
 * is well formed, and the heap stays bounded. The default run feeds 20k frames per target; the full
 * run (CHAOS_FULL=1) feeds 1M.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

import type { DriverEvent } from "../../src/events/types.js";
import { DRIVER_TERMINAL_TYPES, assertDriverEvent } from "../../src/events/validate.js";
import { NdjsonFramer, type JsonLine } from "../../src/process/framer.js";
import { readJsonLines } from "../../src/process/ndjson.js";
import { TurnMapper as CodexTurnMapper } from "../../src/drivers/codex/events.js";
import { TurnMapper as StreamJsonTurnMapper } from "../../src/drivers/stream-json/turn.js";
import { UpdateMapper } from "../../src/drivers/acp/events.js";
import { FULL, SEED, heapMiB, writeResults, type ResultRow } from "./support.js";

/** Frames fed to each target. */
const FRAMES = FULL ? 1_000_000 : 20_000;
/** Frames per generated sequence (one mapper, one turn). */
const PER_RUN = 40;
/** Heap growth allowed across a whole target's fuzzing. */
const HEAP_BOUND_MIB = 64;
const TIMEOUT_MS = FULL ? 3_600_000 : 120_000;

const rows: ResultRow[] = [];
afterAll(() => writeResults("fuzz", rows));

/** Feeds generated sequences to `feed`, recording the frames fed and the heap growth. */
async function fuzz<T>(subject: string, sequences: fc.Arbitrary<T[]>, feed: (frames: T[]) => Promise<void>, framesIn: (sequence: T[]) => number = (s) => s.length): Promise<void> {
  let frames = 0;
  const before = heapMiB();
  const started = Date.now();
  let peak = before;
  // Rounds of fresh seeds until the frame budget is spent (sequence lengths vary).
  for (let round = 0; frames < FRAMES; round++) {
    await fc.assert(
      fc.asyncProperty(sequences, async (sequence) => {
        const n = framesIn(sequence);
        frames += n;
        await feed(sequence);
        if (frames % 50_000 < n) peak = Math.max(peak, heapMiB());
      }),
      { seed: SEED + round, numRuns: Math.max(100, Math.ceil((FRAMES - frames) / PER_RUN)), endOnFailure: true },
    );
  }
  const growth = heapMiB() - before;
  peak = Math.max(peak, before + growth);
  rows.push({ subject, count: frames, outcome: `no throw, no terminal; heap +${(peak - before).toFixed(1)} MiB at peak`, ms: Date.now() - started });
  expect(peak - before).toBeLessThan(HEAP_BOUND_MIB);
}

/** Collects a mapper's events, checking each as core would and refusing terminals. */
function checkingSink(driverId: string): { events: DriverEvent[]; emit: (event: DriverEvent) => Promise<void> } {
  const events: DriverEvent[] = [];
  return {
    events,
    emit: async (event) => {
      assertDriverEvent(driverId, event);
      if (DRIVER_TERMINAL_TYPES.has(event.type)) throw new Error(`the ${driverId} mapper emitted a terminal event ${event.type}`);
      // Kept only briefly: the heap bound is about the mapper, not this collector.
      if (events.length < 64) events.push(event);
    },
  };
}

// --- generators --------------------------------------------------------------------------------

/** A small pool of ids, so items collide, repeat and complete out of order. */
const id = fc.constantFrom("a", "b", "c", "item_1", "", "msg_0", "call_1", "toolu_1");
const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("", "\u0000", "\uD800", "x".repeat(300)));
const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), text, fc.constant([]), fc.constant({}));
/** Any JSON-ish value, shallow enough to stay cheap. */
const anything = fc.anything({ maxDepth: 2, maxKeys: 4 });

/** An object of the given fields, each present with its plausible value, a wrong type, or absent. */
function loose(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(fields).map(([key, value]) => fc.option(fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: junk }), { nil: undefined }).map((v) => [key, v] as const));
  return fc.tuple(fc.tuple(...entries), fc.dictionary(fc.string({ maxLength: 6 }), junk, { maxKeys: 2 })).map(([pairs, extra]) => {
    const out: Record<string, unknown> = { ...extra };
    for (const [key, value] of pairs) if (value !== undefined) out[key] = value;
    return out;
  });
}

/** Sequences of `frame`, with repeats of earlier frames mixed in (duplicates, replays). */
function sequencesOf<T>(frame: fc.Arbitrary<T>): fc.Arbitrary<T[]> {
  return fc.array(frame, { minLength: 1, maxLength: PER_RUN }).chain((frames) =>
    fc.array(fc.nat(frames.length - 1), { maxLength: 4 }).map((dups) => [...frames, ...dups.map((i) => frames[i]!)].slice(0, PER_RUN)),
  );
}

// --- the NDJSON framer and reader ---------------------------------------------------------------

const lineBody = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v) ?? "null")) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constantFrom("\uFEFF{}", "{\"a\":1}\r", "\r", "   ", "{\"unterminated", "\u2028").map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0xff, 0xfe]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc0, 0x80]), Buffer.alloc(200, 0x61)) },
);

/** A byte stream of lines (the last maybe unterminated) and the points where it is cut into chunks. */
const chunkedStream = fc
  .tuple(fc.array(lineBody, { minLength: 1, maxLength: PER_RUN }), fc.boolean())
  .chain(([lines, terminated]) => {
    const bytes = Buffer.concat(lines.flatMap((l, i) => (i < lines.length - 1 || terminated ? [l, Buffer.from("\n")] : [l])));
    return fc.array(fc.nat(bytes.length), { maxLength: 8 }).map((cuts) => ({ lines, bytes, cuts: [...new Set(cuts)].sort((a, b) => a - b) }));
  });

/** Each generated stream counts as the lines it holds. */
const linesIn = (streams: { lines: Buffer[] }[]) => streams[0]!.lines.length;

function chunksOf(bytes: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}

function frameAll(chunks: Buffer[], maxLineBytes: number): JsonLine[] {
  const framer = new NdjsonFramer({ maxLineBytes });
  const out: JsonLine[] = [];
  for (const chunk of chunks) {
    framer.push(chunk, out);
    expect(framer.bufferedBytes).toBeLessThanOrEqual(maxLineBytes + 1);
  }
  framer.end(out);
  return out;
}

/** A framed line without the error object's identity, so two framings compare equal. */
const plain = (line: JsonLine) => (line.kind === "json" ? line : { kind: line.kind, code: line.error.code, line: line.line, excerpt: line.excerpt });

describe("fuzz: NDJSON framing", () => {
  it(
    "frames any byte stream the same however it is chunked, never throws, and holds at most one line",
    async () => {
      await fuzz("NdjsonFramer (any chunking, 64-byte limit)", chunkedStream.map((s) => [s]), async ([s]) => {
        const whole = frameAll([s!.bytes], 64).map(plain);
        const chunked = frameAll(chunksOf(s!.bytes, s!.cuts), 64).map(plain);
        expect(chunked).toEqual(whole);
      }, linesIn);
    },
    TIMEOUT_MS,
  );

  it(
    "reads the same lines through readJsonLines, with and without a signal",
    async () => {
      await fuzz("readJsonLines (chunked source, with signal)", chunkedStream.map((s) => [s]), async ([s]) => {
        const expected = frameAll([s!.bytes], 8 * 1024 * 1024).map(plain);
        async function* source() {
          for (const chunk of chunksOf(s!.bytes, s!.cuts)) yield chunk;
        }
        const got: JsonLine[] = [];
        for await (const line of readJsonLines(source(), { signal: new AbortController().signal, redact: (t) => t })) got.push(line);
        expect(got.map(plain)).toEqual(expected);
      }, linesIn);
    },
    TIMEOUT_MS,
  );
});

// --- Codex notifications --------------------------------------------------------------------------

/** Every notification method of the generated protocol, so new Codex methods are fuzzed too. */
const CODEX_METHODS = [
  ...new Set(
    [...readFileSync(new URL("../../src/drivers/codex/protocol/ServerNotification.ts", import.meta.url), "utf8").matchAll(/"method": "([^"]+)"/g)].map((m) => m[1]!),
  ),
];
const CODEX_ITEM_TYPES = ["agentMessage", "reasoning", "commandExecution", "fileChange", "mcpToolCall", "dynamicToolCall", "collabAgentToolCall", "subAgentActivity", "webSearch", "imageView", "imageGeneration", "contextCompaction", "enteredReviewMode", "exitedReviewMode", "userMessage", "brandNewItem"];

const codexItem = loose({
  type: fc.constantFrom(...CODEX_ITEM_TYPES),
  id,
  text,
  phase: fc.constantFrom("final_answer", "commentary", null),
  command: text,
  cwd: text,
  status: fc.constantFrom("inProgress", "completed", "failed", "declined", "weird"),
  exitCode: fc.oneof(fc.integer(), fc.constant(null)),
  aggregatedOutput: text,
  changes: fc.array(loose({ path: text, kind: loose({ type: fc.constantFrom("add", "delete", "update") }), diff: text }), { maxLength: 3 }),
  summary: fc.array(text, { maxLength: 3 }),
  content: fc.array(text, { maxLength: 3 }),
  server: text,
  tool: text,
  query: text,
  review: text,
});
const codexParams = loose({
  threadId: fc.constantFrom("thr_1", "thr_other"),
  turnId: fc.constantFrom("turn_1", "turn_2"),
  itemId: id,
  item: codexItem,
  delta: text,
  summaryIndex: fc.integer({ min: -1, max: 3 }),
  contentIndex: fc.integer({ min: -1, max: 3 }),
  message: text,
  willRetry: fc.boolean(),
  error: loose({ message: text, codexErrorInfo: text, additionalDetails: text }),
  plan: fc.array(loose({ step: text, status: fc.constantFrom("pending", "inProgress", "completed", "nope") }), { maxLength: 3 }),
  diff: text,
  tokenUsage: loose({ last: loose({ inputTokens: fc.integer(), outputTokens: fc.integer(), totalTokens: fc.integer() }), total: anything, modelContextWindow: fc.integer() }),
  turn: loose({ id: fc.constantFrom("turn_1", "turn_2"), status: fc.constantFrom("completed", "failed", "interrupted", "inProgress"), items: fc.array(codexItem, { maxLength: 2 }), error: anything }),
});
const codexFrame = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...CODEX_METHODS), codexParams) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 30 }), anything) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CODEX_METHODS), anything) },
);

describe("fuzz: mappers", () => {
  it(
    "codex TurnMapper: any notification sequence maps without a throw or a terminal",
    async () => {
      await fuzz("codex TurnMapper (every generated method, loose params)", sequencesOf(codexFrame), async (frames) => {
        const sink = checkingSink("codex");
        const mapper = new CodexTurnMapper(sink.emit);
        mapper.threadId = "thr_1";
        for (const [method, params] of frames) {
          await mapper.handle(method, params);
          if (method === "turn/completed") mapper.turnCompleted((params as { turn?: unknown } | null)?.turn);
        }
        await mapper.closeOpenItems();
        mapper.finalText(frames.at(-1)?.[1]);
      });
    },
    TIMEOUT_MS,
  );

  const block = loose({
    type: fc.constantFrom("text", "thinking", "tool_use", "tool_result", "image", "redacted_thinking", "server_tool_use"),
    text,
    thinking: text,
    id,
    tool_use_id: id,
    name: fc.constantFrom("Bash", "Write", "TodoWrite", "AskUserQuestion", "mcp__srv__tool", "Task", ""),
    input: loose({ command: text, todos: fc.array(loose({ content: text, status: fc.constantFrom("pending", "in_progress", "completed") }), { maxLength: 2 }) }),
    content: fc.oneof(text, fc.array(loose({ type: fc.constantFrom("text", "image"), text }), { maxLength: 2 })),
    is_error: fc.boolean(),
  });
  const streamJsonFrame = loose({
    type: fc.constantFrom("system", "stream_event", "assistant", "user", "result", "error", "control_request", "rate_limit_event", "mystery"),
    subtype: fc.constantFrom("init", "api_retry", "success", "error_during_execution", "compact_boundary", "status"),
    session_id: fc.constantFrom("sess_1", "sess_2"),
    error: text,
    message: loose({ id: fc.constantFrom("msg_1", "msg_2"), role: fc.constantFrom("assistant", "user"), content: fc.array(block, { maxLength: 3 }), usage: anything }),
    event: loose({
      type: fc.constantFrom("message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"),
      index: fc.integer({ min: -1, max: 3 }),
      message: loose({ id: fc.constantFrom("msg_1", "msg_2") }),
      content_block: block,
      delta: loose({ type: fc.constantFrom("text_delta", "thinking_delta", "input_json_delta", "signature_delta"), text, thinking: text, partial_json: text }),
    }),
    result: text,
    is_error: fc.boolean(),
    usage: anything,
    total_cost_usd: fc.double(),
  });

  it(
    "stream-json TurnMapper: any message sequence maps without a throw or a terminal",
    async () => {
      await fuzz("stream-json TurnMapper (claude dialect, loose messages)", sequencesOf(fc.oneof({ weight: 9, arbitrary: streamJsonFrame }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), anything, { maxKeys: 3 }) })), async (frames) => {
        const sink = checkingSink("claude");
        const mapper = new StreamJsonTurnMapper({ emit: sink.emit }, "claude", (t) => t);
        for (const frame of frames) {
          await mapper.handle(frame);
          if (frame.type === "control_request") mapper.markDenied(typeof frame.subtype === "string" ? frame.subtype : undefined);
        }
        await mapper.closeOpenItems();
      });
    },
    TIMEOUT_MS,
  );

  const acpUpdate = loose({
    sessionUpdate: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call", "tool_call_update", "plan", "available_commands_update", "usage_update", "config_option_update", "current_mode_update", "session_info_update", "notice", "brand_new_update"),
    content: fc.oneof(loose({ type: fc.constantFrom("text", "image", "resource_link"), text }), fc.array(loose({ type: fc.constantFrom("content", "diff", "terminal"), content: loose({ type: fc.constant("text"), text }), path: text, oldText: text, newText: text }), { maxLength: 2 })),
    messageId: fc.constantFrom("m1", "m2"),
    toolCallId: id,
    title: text,
    kind: fc.constantFrom("read", "edit", "execute", "fetch", "think", "other", "weird"),
    status: fc.constantFrom("pending", "in_progress", "completed", "failed"),
    rawInput: anything,
    rawOutput: fc.oneof(text, loose({ exitCode: fc.integer(), exit_code: fc.integer() })),
    entries: fc.array(loose({ content: text, status: fc.constantFrom("pending", "in_progress", "completed") }), { maxLength: 3 }),
    availableCommands: fc.array(loose({ name: text, description: text }), { maxLength: 2 }),
    used: fc.oneof(fc.integer(), fc.constant(null)),
    size: fc.integer(),
    cost: loose({ amount: fc.double(), currency: fc.constantFrom("USD", "usd", "EUR") }),
    configOptions: fc.array(anything, { maxLength: 2 }),
    currentModeId: text,
    severity: fc.constantFrom("info", "warning", "error"),
    description: text,
    _meta: loose({ usage: anything }),
  });
  const acpParams = fc.oneof({ weight: 9, arbitrary: loose({ sessionId: fc.constantFrom("s1", "s2"), update: acpUpdate }) }, { weight: 1, arbitrary: anything });

  it(
    "ACP UpdateMapper: any session/update sequence maps without a throw or a terminal",
    async () => {
      await fuzz("ACP UpdateMapper (every update kind, loose fields)", sequencesOf(acpParams), async (frames) => {
        const sink = checkingSink("acp");
        const mapper = new UpdateMapper(sink.emit, { id: "acp", name: "ACP", diagnosticText: [/^Error:/] }, "run_fuzz", { onConfigOptions: () => undefined, onToolSignature: () => undefined });
        for (const params of frames) {
          await mapper.handle(params);
          const update = (params as { update?: { toolCallId?: unknown } } | null)?.update;
          if (typeof update?.toolCallId === "string" && update.toolCallId.startsWith("call")) await mapper.ensureTool(update as Record<string, unknown>);
        }
        await mapper.finish();
        mapper.finalText();
      });
    },
    TIMEOUT_MS,
  );
});
