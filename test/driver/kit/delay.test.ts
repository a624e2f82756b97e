/** The kit's abort-aware delay: it ends with the abort reason as soon as the signal aborts. */
import { afterEach, describe, expect, it, vi } from "vitest";

import { abortableDelay } from "../../../src/driver/kit/delay.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("abortableDelay", () => {
  it("rejects at once when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled before"));
    await expect(abortableDelay(60_000, controller.signal)).rejects.toThrow("cancelled before");
  });

  it("rejects with the abort reason when aborted while waiting, and clears its timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = abortableDelay(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error("cancelled during"));
    await expect(waiting).rejects.toThrow("cancelled during");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("resolves when the time has passed, leaving no abort listener behind", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = abortableDelay(1_000, controller.signal);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(waiting).resolves.toBeUndefined();
    // Aborting afterwards changes nothing: the listener was removed.
    controller.abort(new Error("too late"));
    await expect(waiting).resolves.toBeUndefined();
  });
});
