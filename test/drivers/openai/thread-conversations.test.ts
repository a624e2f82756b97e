/**
 * A thread's conversations in its provider state (`ThreadConversations`): the conversation saved
 * as the thread's becomes `current`, transcripts it refers to (compactions, a rewind) stay, others
 * (a fork's parent) go; the oldest transcripts go first when the document would pass the store's
 * limit, and a conversation alone over it is refused typed; text is redacted, media kept; a
 * thread whose conversation is still in `stateDir` (written before threads kept it in the store)
 * is read from there and moves to the store on its next save.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { providerStateHandle } from "../../../src/agent/provider-state.js";
import type { ConversationFile } from "../../../src/drivers/openai/conversation.js";
import { ConversationStore, documentChars, newSessionId, THREAD_ARCHIVE_MAX, ThreadConversations, type ThreadConversationsDocument } from "../../../src/drivers/openai/conversation-store.js";
import { memoryThreadStore, type ThreadStore } from "../../../src/index.js";
import { createRedactor } from "../../../src/redact/redact.js";

const root = mkdtempSync(join(tmpdir(), "openai-thread-conversations-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const at = "2026-01-01T00:00:00.000Z";
function conversation(id: string, text: string, extra: Partial<ConversationFile> = {}): ConversationFile {
  return { version: 1, id, createdAt: at, updatedAt: at, turns: [{ runId: `run-${id}`, startedAt: at, messages: [{ role: "user", content: [{ type: "text", text }], origin: "prompt" }] }], ...extra };
}

async function thread(maxBytes?: number): Promise<{ store: ThreadStore; conversations: () => ThreadConversations; doc: () => Promise<ThreadConversationsDocument> }> {
  const store = memoryThreadStore();
  await store.create({ id: "t", driver: "openai", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });
  await store.acquireLease("t", "owner", 60_000);
  const redactor = createRedactor({ secrets: ["canary-secret-value"] });
  return {
    store,
    conversations: () => new ThreadConversations(providerStateHandle(store, "t", "owner", redactor, maxBytes)!, redactor, new ConversationStore(join(root, "state"), redactor)),
    doc: async () => JSON.parse((await store.loadProviderState!("t"))!) as ThreadConversationsDocument,
  };
}

describe("openai thread conversations", () => {
  it("keeps the thread's conversation and the transcripts it refers to, drops the rest, redacted", async () => {
    const t = await thread();
    const parent = conversation(newSessionId(), "parent");
    await t.conversations().save(parent);
    expect((await t.doc()).current).toBe(parent.id);

    // A fork's first save: the parent's conversation is not the fork's to keep.
    const fork = conversation(newSessionId(), "fork says canary-secret-value", { forkedFrom: parent.id });
    const c = t.conversations();
    await expect(c.load(parent.id)).resolves.toMatchObject({ id: parent.id });
    await c.save(fork);
    expect((await t.doc()).conversations.map((x) => x.id)).toEqual([fork.id]);
    expect(await t.store.loadProviderState!("t")).not.toContain("canary-secret-value");

    // A compaction: the transcript first (kept while its conversation is saved), then the conversation.
    const transcript = { ...fork, id: newSessionId(), transcriptOf: fork.id };
    await c.save(transcript);
    expect((await t.doc()).current).toBe(fork.id);
    await c.save({ ...fork, compactions: [{ at, beforeTurn: 1, transcriptId: transcript.id }] });
    // A rewind: the copy refers to what it was made from.
    const rewound = conversation(newSessionId(), "rewound", { rewoundFrom: fork.id });
    await c.save(rewound);
    const doc = await t.doc();
    expect(doc.current).toBe(rewound.id);
    expect(doc.conversations.map((x) => x.id).sort()).toEqual([fork.id, transcript.id, rewound.id].sort());
    // A new instance (the next run) reads them back.
    await expect(t.conversations().load(transcript.id)).resolves.toMatchObject({ transcriptOf: fork.id });
    await expect(t.conversations().load(newSessionId())).rejects.toMatchObject({ code: "provider_session_not_found" });
  });

  it("keeps at most THREAD_ARCHIVE_MAX transcripts, and drops the oldest first to stay within the store's limit", async () => {
    const t = await thread(6000);
    const c = t.conversations();
    let previous = conversation(newSessionId(), "start");
    await c.save(previous);
    const ids = [previous.id];
    for (let i = 0; i < THREAD_ARCHIVE_MAX + 3; i++) {
      const next = conversation(newSessionId(), `step ${i}`, { rewoundFrom: previous.id });
      await c.save(next);
      ids.push(next.id);
      previous = next;
    }
    const kept = (await t.doc()).conversations.map((x) => x.id);
    expect(kept.at(-1)).toBe(previous.id);
    expect(kept.length).toBeLessThanOrEqual(THREAD_ARCHIVE_MAX + 1);
    // Within 6000 bytes fewer fit: the newest were kept, the oldest went.
    expect(Buffer.byteLength((await t.store.loadProviderState!("t"))!)).toBeLessThanOrEqual(6000);
    expect(kept).toEqual(ids.slice(ids.length - kept.length));
    expect(kept.length).toBeLessThan(THREAD_ARCHIVE_MAX + 1);

    // One conversation alone over the limit is refused, typed, and the document stays as it was.
    const before = await t.store.loadProviderState!("t");
    await expect(c.save(conversation(previous.id, "x".repeat(7000)))).rejects.toMatchObject({ code: "provider_state_too_large" });
    expect(await t.store.loadProviderState!("t")).toBe(before);
  });

  it("keeps a saved conversation as it was saved when the run adds a compaction to its own afterwards", async () => {
    const t = await thread();
    const c = t.conversations();
    const live = conversation(newSessionId(), "live", { compactions: [{ at, beforeTurn: 1, transcriptId: newSessionId() }] });
    await c.save(live);
    live.compactions!.push({ at, beforeTurn: 2, transcriptId: newSessionId() });
    expect((await c.load(live.id)).compactions).toHaveLength(1);
  });

  it("counts a document's JSON characters as its JSON text has them", () => {
    const doc: ThreadConversationsDocument = { kind: "openai.conversations", version: 1, conversations: [] };
    expect(documentChars(doc)).toBe(JSON.stringify(doc).length);
    doc.conversations.push(conversation(newSessionId(), 'quotes " and \\ and\nlines, é and 😀'));
    expect(documentChars(doc)).toBe(JSON.stringify(doc).length);
    doc.conversations.push(conversation(newSessionId(), "second"), conversation(newSessionId(), "third"));
    doc.current = doc.conversations[1]!.id;
    expect(documentChars(doc)).toBe(JSON.stringify(doc).length);
  });

  it("reads a conversation still in stateDir and moves it to the store on the next save", async () => {
    const t = await thread();
    const legacy = conversation(newSessionId(), "written before threads kept conversations");
    await new ConversationStore(join(root, "state"), createRedactor()).save(legacy);
    const c = t.conversations();
    const loaded = await c.load(legacy.id);
    expect(loaded.turns).toHaveLength(1);
    await c.save({ ...loaded, turns: [...loaded.turns, ...conversation("x", "next").turns] });
    const doc = await t.doc();
    expect(doc.current).toBe(legacy.id);
    expect(doc.conversations[0]!.turns).toHaveLength(2);
  });

  it("keeps media bytes as they are, and drops bytes past the stored media limit", async () => {
    const t = await thread();
    const data = `iVBORw0KGgo${"AIza".concat("B".repeat(40))}==`;
    const file: ConversationFile = { version: 1, id: newSessionId(), createdAt: at, updatedAt: at, turns: [{ runId: "r", startedAt: at, messages: [{ role: "user", content: [{ type: "image", mediaType: "image/png", data }] }] }] };
    await t.conversations().save(file);
    const part = (await t.doc()).conversations[0]!.turns[0]!.messages[0]!;
    expect(part.role === "user" ? part.content[0] : undefined).toEqual({ type: "image", mediaType: "image/png", data });
  });
});
