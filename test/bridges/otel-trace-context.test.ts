/**
 * `CallOptions.traceContext` (issue #19 item 6): a run's W3C trace context reaches the process
 * launched for it as TRACEPARENT / TRACESTATE, read from the live child's /proc/<pid>/environ; a
 * malformed value is refused before launch; it is call-only.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ConfigError, createAgent } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

async function environOf(pid: number): Promise<Map<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, "utf8");
  return new Map(raw.split("\0").filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

describe.skipIf(process.platform !== "linux")("trace context into the provider process", () => {
  it("a launched child has TRACEPARENT and TRACESTATE in its environment; a run without one has neither", async () => {
    const driver = fakeDriver({
      process: true,
      script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "hi" } }, { waitForAbort: true }] },
    });
    await using agent = createAgent(driver);
    const seen: Map<string, string>[] = [];
    for (const traceContext of [{ traceparent: TRACEPARENT, tracestate: "vendor=abc" }, undefined]) {
      const stream = agent.stream("go", traceContext ? { traceContext } : {});
      for await (const event of stream) {
        if (event.type !== "message.delta") continue;
        // The child waits for the cancel: its environment is read while it lives.
        const pids = driver.probe.livePids();
        expect(pids).toHaveLength(1);
        seen.push(await environOf(pids[0]!));
        stream.cancel("read");
      }
      await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    }
    expect(seen[0]!.get("TRACEPARENT")).toBe(TRACEPARENT);
    expect(seen[0]!.get("TRACESTATE")).toBe("vendor=abc");
    expect(seen[1]!.has("TRACEPARENT")).toBe(false);
    expect(seen[1]!.has("TRACESTATE")).toBe(false);
  });

  it("refuses a malformed traceparent before launch, and traceContext as a default", async () => {
    const driver = fakeDriver({ process: true });
    await using agent = createAgent(driver);
    for (const traceparent of ["00-0000000000000000000000000000000-00f067aa0ba902b7-01", "not-a-trace", `${TRACEPARENT}\nX=1`, "00-00000000000000000000000000000000-00f067aa0ba902b7-01"]) {
      await expect(agent.run("go", { traceContext: { traceparent } })).rejects.toMatchObject({ code: "config_invalid" });
    }
    expect(driver.probe.startedPids()).toEqual([]);
    expect(() => createAgent(driver, { defaults: { traceContext: { traceparent: TRACEPARENT } } as never })).toThrow(ConfigError);
  });
});
