import { describe, expect, it } from "vitest";

import { runThreadStoreSuite } from "../../src/testing/thread-store-suite.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";

runThreadStoreSuite(() => memoryThreadStore(), { runner: { describe, it } });

describe("memoryThreadStore", () => {
  it("expires leases on the clock it is given", async () => {
    let now = 1_000;
    const store = memoryThreadStore({ now: () => now });
    await store.create({ id: "t", driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });
    expect(await store.acquireLease("t", "a", 100)).toEqual({ owner: "a", expiresAt: 1_100 });
    now = 1_099;
    expect(await store.acquireLease("t", "b", 100)).toBeUndefined();
    now = 1_100;
    expect(await store.acquireLease("t", "b", 100)).toEqual({ owner: "b", expiresAt: 1_200 });
  });

  it("rejects malformed input with config_invalid and operations after close with store_closed", async () => {
    const store = memoryThreadStore();
    await expect(store.create({ id: "", driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} })).rejects.toMatchObject({
      code: "config_invalid",
    });
    await store.create({ id: "t", driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });
    await expect(store.acquireLease("t", "a", 0)).rejects.toMatchObject({ code: "config_invalid" });
    await expect(store.acquireLease("t", "a", Number.NaN)).rejects.toMatchObject({ code: "config_invalid" });
    await store.acquireLease("t", "a", 1000);
    await expect(store.saveCheckpoint("t", "a", { checkpoint: { turns: -1 } })).rejects.toMatchObject({ code: "config_invalid" });
    await store.close();
    await expect(store.get("t")).rejects.toMatchObject({ code: "store_closed" });
  });
});
