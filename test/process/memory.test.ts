/**
 * Memory stays bounded however much a provider writes: 400 MB of ordinary frames, or one 400 MB
 * line, through each reading path the drivers use (plain `readJsonLines` for stream-json, ACP and
 * the fake driver; `readJsonLines` with a stop signal inside `JsonRpcPeer` for Codex; the
 * stream-json driver's process reader for Claude and CodeBuddy). Host RSS is
 * measured after a full collection, before and after the stream.
 */
import { describe, expect, it } from "vitest";

import { StreamJsonProcess } from "../../src/drivers/stream-json/process.js";
import { createRedactor } from "../../src/redact/redact.js";
import { JsonRpcPeer, readJsonLines, spawnProcess, type ProcessHandle } from "../../src/process/index.js";

const TOTAL_BYTES = 400 * 1000 * 1000;
/** 1000-byte frames, 64 to a block. */
const FRAMES = TOTAL_BYTES / 1000;
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;

/** A child writing `TOTAL_BYTES` as fast as the pipe takes them: 1 KB notification frames, or one line. */
function emitter(shape: "frames" | "one-line"): string {
  return String.raw`
    const total = ${TOTAL_BYTES};
    const shape = ${JSON.stringify(shape)};
    const frame = JSON.stringify({ method: "note", params: { pad: "p".repeat(1000 - 38) } }) + "\n";
    const block = shape === "frames" ? Buffer.from(frame.repeat(64)) : Buffer.alloc(1 << 16, 0x78);
    (async () => {
      if (shape === "one-line") await new Promise((resolve) => process.stdout.write('{"method":"huge","params":"', resolve));
      for (let sent = 0; sent < total; sent += block.length) {
        if (!process.stdout.write(block)) await new Promise((resolve) => process.stdout.once("drain", resolve));
      }
      process.stdout.write('"}\n{"method":"after","params":{}}\n');
    })();
  `;
}

function rssAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with --expose-gc");
  gc();
  gc();
  return process.memoryUsage().rss;
}

/** Streams the child's output through `read` and returns the host's RSS growth. */
async function measure(shape: "frames" | "one-line", read: (child: ProcessHandle) => Promise<void>): Promise<number> {
  const before = rssAfterGc();
  const child = await spawnProcess({ command: process.execPath, args: ["-e", emitter(shape)] });
  try {
    await read(child);
  } finally {
    await child.stop();
  }
  return rssAfterGc() - before;
}

const SHAPES = ["frames", "one-line"] as const;

describe("host memory under 400 MB of provider output", () => {
  it.each(SHAPES)("stays under 64 MiB of RSS growth through readJsonLines (stream-json, ACP): %s", async (shape) => {
    let count = 0;
    let tooLarge = 0;
    const growth = await measure(shape, async (child) => {
      for await (const item of readJsonLines(child.stdout)) {
        if (item.kind === "json") count++;
        else if (item.error.code === "frame_too_large") tooLarge++;
      }
    });
    expect(count).toBe(shape === "frames" ? FRAMES + 1 : 1);
    expect(tooLarge).toBe(shape === "frames" ? 0 : 1);
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  });

  it.each(SHAPES)("stays under 64 MiB of RSS growth through readJsonLines with a signal (Codex's JSON-RPC peer): %s", async (shape) => {
    let notes = 0;
    let tooLarge = 0;
    const growth = await measure(shape, async (child) => {
      const peer = new JsonRpcPeer({
        input: child.stdout,
        output: child.stdin,
        jsonrpcField: false,
        onNotification: () => void notes++,
        onProtocolError: (error) => void (error.code === "frame_too_large" && tooLarge++),
      });
      await peer.done;
    });
    expect(notes).toBe(shape === "frames" ? FRAMES + 1 : 1);
    expect(tooLarge).toBe(shape === "frames" ? 0 : 1);
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  });
});

describe("the stream-json driver's process reader (Claude, CodeBuddy)", () => {
  it.each(SHAPES)("stays under 64 MiB of RSS growth for 400 MB of CLI output: %s", async (shape) => {
    const before = rssAfterGc();
    const proc = await StreamJsonProcess.start({
      command: process.execPath,
      args: ["-e", emitter(shape)],
      cwd: process.cwd(),
      env: {},
      inheritEnv: [],
      redactor: createRedactor({ env: {} }),
    });
    let messages = 0;
    let tooLarge = 0;
    await proc.attach((item) => {
      // The frames carry no stream-json `type`, so each is read and reported as malformed_frame.
      if (item.kind === "message" || item.code === "malformed_frame") messages++;
      else if (item.code === "frame_too_large") tooLarge++;
    });
    await proc.ended;
    await proc.stop();
    const growth = rssAfterGc() - before;
    expect(messages).toBe(shape === "frames" ? FRAMES + 1 : 1);
    expect(tooLarge).toBe(shape === "frames" ? 0 : 1);
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  });
});
