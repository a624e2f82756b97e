/**
 * `threadLeaseTtlMs`: how long a run's thread lease lasts unless renewed. Checked at construction
 * (typed, early, naming the option); a run takes the lease for that long on the store's clock and
 * renews it for that long again. The restart test relies on it to take over a killed host's
 * thread without waiting out the 30 s default (test/session/restart-child.test.ts).
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { fakeDriver } from "../../src/testing/fake-driver/driver.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
}

/** A run that holds its thread until cancelled, on a store whose clock only moves when told. */
async function heldRun(options: { threadLeaseTtlMs?: number }) {
  let now = 1_000_000;
  const store = memoryThreadStore({ now: () => now });
  const agent = createAgent(fakeDriver({ script: () => ({ steps: [{ markDelivered: true }, { waitForAbort: true }] }) }), { threadStore: store, ...options });
  const thread = await agent.startThread();
  const run = thread.stream("hold");
  await until(async () => (await store.get(thread.id))?.lease !== undefined);
  return {
    store,
    thread,
    at: () => now,
    advance: (ms: number) => (now += ms),
    async end() {
      run.cancel();
      await run.result.catch(() => undefined);
      await agent.close();
    },
  };
}

describe("threadLeaseTtlMs", () => {
  it.each([-1, 0, 999, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "30000"])("refuses %s with config_invalid naming the option", (value) => {
    expect(() => createAgent(fakeDriver(), { threadLeaseTtlMs: value as number })).toThrow(
      expect.objectContaining({ code: "config_invalid", message: expect.stringContaining("threadLeaseTtlMs") }),
    );
  });

  it("is construction-only: a call that passes it is refused as option_scope", async () => {
    const agent = createAgent(fakeDriver());
    try {
      await expect(agent.run("hi", { threadLeaseTtlMs: 1000 } as never)).rejects.toMatchObject({ code: "option_scope" });
    } finally {
      await agent.close();
    }
  });

  it("a run's lease lasts 30 s by default", async () => {
    const held = await heldRun({});
    try {
      expect((await held.store.get(held.thread.id))?.lease?.expiresAt).toBe(held.at() + 30_000);
    } finally {
      await held.end();
    }
  });

  it("a run takes its lease for the given time and renews it for that time again", async () => {
    const held = await heldRun({ threadLeaseTtlMs: 1500 });
    try {
      const taken = held.at();
      expect((await held.store.get(held.thread.id))?.lease?.expiresAt).toBe(taken + 1500);
      // The run renews at a third of the TTL; the renewal extends from the store's clock at that moment.
      held.advance(1000);
      await until(async () => (await held.store.get(held.thread.id))?.lease?.expiresAt === taken + 1000 + 1500);
    } finally {
      await held.end();
    }
  });
});
