/**
 * The server lets go of an idle session by closing it, and the close gives up the store's
 * ownership only when it ends. Until then the session is still this server's: the view must say
 * `live`, or a client that hands the session to another server on `live: false` meets
 * `session_owned`. The store's `releaseOwner` is held here, so "closing, ownership not yet given
 * up" is a state the test holds, not a race.
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/index.js";
import { SessionHub } from "../../src/server/sessions.js";
import { openSession } from "../../src/session/open.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";
import type { SessionStore } from "../../src/session/types.js";
import { fakeDriver } from "../../src/testing/index.js";
import { until } from "./api/helpers.js";

describe("a session the server lets go of", () => {
  it("stays live in the view until its ownership is given up, then another host can open it", async () => {
    const store = memorySessionStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let releasing!: () => void;
    const releaseCalled = new Promise<void>((resolve) => (releasing = resolve));
    const gated = new Proxy(store, {
      get(target, key) {
        if (key === "releaseOwner") {
          return async (id: string, owner: string) => {
            releasing();
            await held;
            await target.releaseOwner(id, owner);
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as SessionStore;
    const threadStore = memoryThreadStore();
    const agent = createAgent(fakeDriver(), { threadStore });
    const hub = new SessionHub(gated, new Map([["fake", { name: "fake", agent, workspace: "/" }]]), { idleCloseMs: 10 });
    try {
      await hub.create({ agent: "fake", id: "handed" });

      // The idle check closes the session; its close now waits on the store.
      await releaseCalled;
      expect(hub.liveCount).toBe(0);
      expect((await hub.view("handed")).live).toBe(true);
      expect((await store.get("handed"))?.owner).toBeDefined();

      release();
      await until(async () => ((await hub.view("handed")).live ? undefined : true));
      expect((await store.get("handed"))?.owner).toBeUndefined();
      // Another host (agent) on the same stores takes the session over.
      const otherAgent = createAgent(fakeDriver(), { threadStore });
      const other = await openSession(otherAgent, "handed", { store });
      await other.close();
      await otherAgent.close();
    } finally {
      release();
      await hub.close();
      await agent.close();
    }
  });
});
