/**
 * The writer table on its own: replacing, confirming away or idling out a writer whose close fails
 * must not surface as an unhandled rejection (vitest fails the file on one), and the failed writer
 * is gone from the table all the same.
 */
import { describe, expect, it } from "vitest";
import { ThreadWriters } from "../../src/agent/writer.js";
import type { StandbyHandle } from "../../src/driver/types.js";

function failingHandle(): StandbyHandle & { closes: number } {
  const handle = {
    closes: 0,
    isAlive: () => true,
    close: () => {
      handle.closes += 1;
      return Promise.reject(new Error("close failed"));
    },
  };
  return handle;
}

const binding = { signature: "sig", providerSessionId: "session-1", runId: "run-1" };
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("ThreadWriters with a writer whose close rejects", () => {
  it("keep() over it retires it without an unhandled rejection", async () => {
    const writers = new ThreadWriters(60_000);
    const first = failingHandle();
    writers.keep("t", first, binding);
    writers.keep("t", failingHandle(), binding);
    await flush();
    expect(first.closes).toBe(1);
    await writers.close();
  });

  it("confirm() against a moved-on checkpoint retires it without an unhandled rejection", async () => {
    const writers = new ThreadWriters(60_000);
    const handle = failingHandle();
    writers.keep("t", handle, binding);
    writers.confirm("t", { lastRunId: "run-2", providerSessionId: "session-1" });
    await flush();
    expect(handle.closes).toBe(1);
    expect(writers.take("t", "sig", () => true)).toBeUndefined();
  });
});
