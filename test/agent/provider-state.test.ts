/**
 * Thread-scoped provider state (`RunRequest.providerState`, `RewindRequest.providerState`): core
 * hands a run on a thread a handle to the thread's document in the thread store, and none to a
 * plain run or over a store without it; a later run (from another agent over the same store) reads
 * what an earlier one saved; a fork starts with a copy; a rewind writes under its lease; and the
 * handle removes registered secrets (only those: base64 stays byte for byte), bounds the size and
 * refuses a save once the lease is lost, writing nothing.
 */
import { describe, expect, it } from "vitest";

import { providerStateHandle } from "../../src/agent/provider-state.js";
import type { Driver, ProviderStateHandle, RewindRequest } from "../../src/driver/types.js";
import { createAgent, memoryThreadStore, type Agent, type ThreadStore } from "../../src/index.js";
import { createRedactor } from "../../src/redact/redact.js";
import { fakeDriver } from "../../src/testing/index.js";
import { PROVIDER_STATE_MAX_BYTES } from "../../src/thread/store.js";

interface Doc {
  prompts: string[];
}

/** The fake driver, keeping the prompts of a thread's runs in its provider state, and what it was handed. */
interface StatefulDriver {
  driver: Driver;
  handles: (ProviderStateHandle | undefined)[];
  loaded: unknown[];
  rewinds: RewindRequest[];
}

function statefulDriver(): StatefulDriver {
  const base = fakeDriver();
  const handles: (ProviderStateHandle | undefined)[] = [];
  const loaded: unknown[] = [];
  const rewinds: RewindRequest[] = [];
  const driver: Driver = {
    ...base,
    async run(request, sink, signal) {
      handles.push(request.providerState);
      if (request.providerState !== undefined) {
        const before = (await request.providerState.load()) as Doc | undefined;
        loaded.push(before);
        await request.providerState.save({ prompts: [...(before?.prompts ?? []), request.prompt] });
      }
      return base.run(request, sink, signal);
    },
    async rewind(request) {
      rewinds.push(request);
      const before = (await request.providerState!.load()) as Doc;
      await request.providerState!.save({ prompts: before.prompts.slice(0, 1) });
      return { providerSessionId: "fake_rewound" };
    },
  };
  return { driver, handles, loaded, rewinds };
}

const workspace = process.cwd();

/** Runs `body` with an agent over `store` driving a fresh stateful driver, and closes the agent after. */
async function withStatefulAgent(store: ThreadStore, body: (agent: Agent, stateful: StatefulDriver) => Promise<void>): Promise<void> {
  const stateful = statefulDriver();
  const agent = createAgent(stateful.driver, { workspace, threadStore: store });
  try {
    await body(agent, stateful);
  } finally {
    await agent.close();
  }
}
const state = async (store: ThreadStore, id: string): Promise<unknown> => {
  const text = await store.loadProviderState!(id);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
};

describe("thread-scoped provider state", () => {
  it("is handed to thread runs only, and a later agent over the same store reads what an earlier one saved", async () => {
    const store = memoryThreadStore();
    let threadId = "";
    await withStatefulAgent(store, async (agent, first) => {
      await agent.run("plain");
      expect(first.handles).toEqual([undefined]);
      const thread = await agent.startThread();
      threadId = thread.id;
      await thread.run("one");
      expect(first.handles[1]?.maxBytes).toBe(PROVIDER_STATE_MAX_BYTES);
      expect(first.loaded).toEqual([undefined]);
    });
    await withStatefulAgent(store, async (later, second) => {
      await (await later.resumeThread(threadId)).run("two");
      expect(second.loaded).toEqual([{ prompts: ["one"] }]);
      expect(await state(store, threadId)).toEqual({ prompts: ["one", "two"] });
    });
  });

  it("gives a fork a copy of its parent's state; each goes on alone; deleting a thread deletes its state", async () => {
    const store = memoryThreadStore();
    await withStatefulAgent(store, async (agent, { loaded }) => {
      const thread = await agent.startThread();
      await thread.run("base");
      const fork = await thread.fork();
      expect(await state(store, fork.id)).toEqual({ prompts: ["base"] });
      await fork.run("branch");
      await thread.run("parent");
      expect(loaded.at(-2)).toEqual({ prompts: ["base"] });
      expect(await state(store, fork.id)).toEqual({ prompts: ["base", "branch"] });
      expect(await state(store, thread.id)).toEqual({ prompts: ["base", "parent"] });
      expect(await store.delete(fork.id)).toBe(true);
      expect(await store.loadProviderState!(fork.id)).toBeUndefined();
    });
  });

  it("hands a rewind the thread's state under the rewind's lease", async () => {
    const store = memoryThreadStore();
    await withStatefulAgent(store, async (agent, { rewinds }) => {
      const thread = await agent.startThread();
      await thread.run("one");
      await thread.run("two");
      const record = await thread.rewind(1);
      expect(record.providerSessionId).toBe("fake_rewound");
      expect(rewinds).toHaveLength(1);
      expect(await state(store, thread.id)).toEqual({ prompts: ["one"] });
      // The rewind's lease is gone: its handle no longer writes.
      await expect(rewinds[0]!.providerState!.save({ prompts: [] })).rejects.toMatchObject({ code: "lease_lost" });
      expect(await state(store, thread.id)).toEqual({ prompts: ["one"] });
    });
  });

  it("is absent over a host's store without the optional methods", async () => {
    const { loadProviderState: _load, saveProviderState: _save, ...rest } = memoryThreadStore();
    await withStatefulAgent(rest, async (agent, { handles }) => {
      await (await agent.startThread()).run("one");
      expect(handles).toEqual([undefined]);
    });
  });
});

describe("providerStateHandle", () => {
  async function leased(): Promise<{ store: ThreadStore; id: string }> {
    const store = memoryThreadStore();
    const { id } = await store.create({ id: "t1", driver: "fake", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });
    await store.acquireLease(id, "owner", 60_000);
    return { store, id };
  }

  it("removes registered secrets from every string, keys included, and leaves other text and base64 as they are", async () => {
    const { store, id } = await leased();
    const redactor = createRedactor({ secrets: ["hunter2-secret"] });
    const handle = providerStateHandle(store, id, "owner", redactor)!;
    // Shaped like a Google key (a pattern the full redactor removes): inside base64 it must stay.
    const base64 = `iVBORw0KGgo${"AIza".concat("B".repeat(30))}==`;
    await handle.save({ text: "my hunter2-secret here", "hunter2-secret": 1, data: base64, nested: [{ bearer: "Bearer abcdefgh" }], n: 1.5, ok: true, none: null, gone: undefined });
    expect(await handle.load()).toEqual({ text: "my [REDACTED] here", "[REDACTED]": 1, data: base64, nested: [{ bearer: "Bearer abcdefgh" }], n: 1.5, ok: true, none: null });
  });

  it("refuses a document over maxBytes, a value JSON cannot carry, and a save after the lease was lost, writing nothing", async () => {
    const { store, id } = await leased();
    const handle = providerStateHandle(store, id, "owner", createRedactor(), 1000)!;
    expect(handle.maxBytes).toBe(1000);
    await handle.save({ kept: true });
    await expect(handle.save({ big: "é".repeat(600) })).rejects.toMatchObject({ code: "provider_state_too_large" });
    await expect(handle.save({ when: new Date(0) })).rejects.toMatchObject({ code: "config_invalid" });
    await expect(handle.save({ n: Number.NaN })).rejects.toMatchObject({ code: "config_invalid" });
    await store.releaseLease(id, "owner");
    await store.acquireLease(id, "someone-else", 60_000);
    await expect(handle.save({ late: true })).rejects.toMatchObject({ code: "lease_lost" });
    expect(await handle.load()).toEqual({ kept: true });
  });
});
