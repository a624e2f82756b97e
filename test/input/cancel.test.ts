/**
 * Cancellation before, during the open, during the copy and hashing, and failure part-way: the
 * promise rejects with the signal's reason, every reader is closed, and no directory is left.
 */
import { readdirSync, readlinkSync } from "node:fs";
import { Readable } from "node:stream";
import { ReadableStream } from "node:stream/web";
import { afterEach, describe, expect, it, vi } from "vitest";

import { input, materializeInputs, type MaterializeContext } from "../../src/input/index.js";
import { materializeTestHooks } from "../../src/input/materialize.js";
import { ALL, expectInputError, expectNoRunDirectories, runDirectories, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const context = (signal: AbortSignal, overrides: Partial<MaterializeContext> = {}): MaterializeContext => ({
  driverId: "d",
  capabilities: ALL,
  signal,
  ...overrides,
});
const reason = () => new Error("cancelled by the test");

afterEach(() => {
  delete materializeTestHooks.afterOpen;
});

function openPaths(): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

/** A byte stream that yields one chunk, then one more every `ms` milliseconds, forever. */
function slowNodeStream(ms: number, onFirstChunk?: () => void): Readable {
  let n = 0;
  return new Readable({
    highWaterMark: 1,
    read() {
      if (n++ === 0) {
        this.push(Buffer.from("first chunk"));
        onFirstChunk?.();
      } else setTimeout(() => this.push(Buffer.from("more")), ms).unref();
    },
  });
}

describe("cancellation", () => {
  it("an already aborted signal rejects with its reason before anything is opened", async () => {
    const controller = new AbortController();
    const why = reason();
    controller.abort(why);
    const open = vi.fn(() => Readable.from([Buffer.from("x")]));
    await expect(materializeInputs([input.fromOpener("file", "a.txt", open)], context(controller.signal))).rejects.toBe(why);
    expect(open).not.toHaveBeenCalled();
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("during the open: an opener waiting on its signal sees the abort; the run directory is gone", async () => {
    const controller = new AbortController();
    const why = reason();
    let openerSignal: AbortSignal | undefined;
    let called!: () => void;
    const wasCalled = new Promise<void>((resolve) => (called = resolve));
    const ref = input.fromOpener("file", "a.txt", (s) => {
      openerSignal = s;
      called();
      return new Promise((_, reject) => s.addEventListener("abort", () => reject(new Error("opener saw the abort")), { once: true }));
    });
    const pending = materializeInputs([ref], context(controller.signal));
    await wasCalled;
    expect(await runDirectories(scratch.runTmp)).toHaveLength(1);
    controller.abort(why);
    await expect(pending).rejects.toBe(why);
    expect(openerSignal!.aborted).toBe(true);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("during the open: an opener that ignores the signal does not hold the run; its late stream is destroyed", async () => {
    const controller = new AbortController();
    const why = reason();
    let deliver!: (stream: Readable) => void;
    let called!: () => void;
    const wasCalled = new Promise<void>((resolve) => (called = resolve));
    const ref = input.fromOpener("file", "a.txt", () => {
      called();
      return new Promise<Readable>((resolve) => (deliver = resolve));
    });
    const pending = materializeInputs([ref], context(controller.signal));
    await wasCalled;
    controller.abort(why);
    await expect(pending).rejects.toBe(why);
    await expectNoRunDirectories(scratch.runTmp);
    const late = slowNodeStream(10);
    const destroy = vi.spyOn(late, "destroy");
    deliver(late);
    await vi.waitFor(() => expect(destroy).toHaveBeenCalled());
    expect(late.destroyed).toBe(true);
  });

  it("during the copy of a slow Node stream: rejects with the reason, destroys the stream", async () => {
    const controller = new AbortController();
    const why = reason();
    const stream = slowNodeStream(20, () => setTimeout(() => controller.abort(why), 30));
    const destroy = vi.spyOn(stream, "destroy");
    await expect(materializeInputs([input.fromOpener("file", "slow.txt", () => stream)], context(controller.signal))).rejects.toBe(why);
    expect(destroy).toHaveBeenCalled();
    expect(stream.destroyed).toBe(true);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("during the copy of a slow web stream: rejects with the reason, cancels the stream", async () => {
    const controller = new AbortController();
    const why = reason();
    const cancel = vi.fn();
    let n = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        async pull(c) {
          if (n++ === 1) setTimeout(() => controller.abort(why), 10);
          await new Promise((resolve) => setTimeout(resolve, 20));
          c.enqueue(new Uint8Array([1, 2, 3]));
        },
        cancel,
      },
      { highWaterMark: 0 },
    );
    await expect(
      materializeInputs([input.fromOpener("file", "web.bin", () => stream, { mediaType: "application/octet-stream" })], context(controller.signal)),
    ).rejects.toBe(why);
    expect(cancel).toHaveBeenCalled();
    expect(stream.locked).toBe(false);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("during the copy and hashing of a large file: rejects with the reason, closes the file", async () => {
    const path = await writeFixture(scratch.dir, "large.bin", Buffer.alloc(48 * 1024 * 1024, 5));
    const controller = new AbortController();
    const why = reason();
    materializeTestHooks.afterOpen = () => {
      expect(openPaths()).toContain(path);
      // Abort right after the copy's first read completes.
      setImmediate(() => controller.abort(why));
    };
    const startedAt = Date.now();
    await expect(
      materializeInputs([input.fromPath("file", path, { mediaType: "application/octet-stream" })], context(controller.signal)),
    ).rejects.toBe(why);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(openPaths()).not.toContain(path);
    expect(openPaths().filter((p) => p.includes("agent-adaptor-inputs-"))).toEqual([]);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("a failure part-way aborts the opener of the failing input and removes the earlier inputs' files", async () => {
    const first = await writeFixture(scratch.dir, "first.txt", "fine");
    let secondSignal: AbortSignal | undefined;
    const failing = input.fromOpener("file", "b.txt", (s) => {
      secondSignal = s;
      return new Readable({
        read() {
          this.destroy(new Error("boom"));
        },
      });
    });
    await expectInputError(
      materializeInputs([input.fromPath("file", first), failing], context(new AbortController().signal)),
      "input_materialization_failed",
      { index: 1 },
    );
    expect(secondSignal!.aborted).toBe(true);
    expect(openPaths()).not.toContain(first);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("an abort that races a failure still rejects with the signal's reason", async () => {
    const controller = new AbortController();
    const why = reason();
    const ref = input.fromOpener("file", "a.txt", (s) => {
      controller.abort(why);
      // An opener that fails because of the abort; its error must not replace the reason.
      return Promise.reject(s.reason ?? new Error("aborted"));
    });
    await expect(materializeInputs([ref], context(controller.signal))).rejects.toBe(why);
    await expectNoRunDirectories(scratch.runTmp);
  });
});
