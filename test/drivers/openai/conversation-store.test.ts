/**
 * The conversation store names files only by session ids this driver gives out: an id from a
 * tampered thread store (a path, `../`) never reaches the file system. Conversations are appended
 * to a journal: a record cut short by a crash is skipped (the save before it is read), the newest
 * save wins, and journals are folded into one file per conversation.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { ConversationStore, JOURNAL_RECORD_MAX, newSessionId } from "../../../src/drivers/openai/conversation-store.js";
import type { ConversationFile } from "../../../src/drivers/openai/conversation.js";
import { createRedactor } from "../../../src/redact/redact.js";

const root = mkdtempSync(join(tmpdir(), "openai-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("openai conversation store", () => {
  it("refuses a session id that is not its own (path traversal) for load, save and remove", async () => {
    const stateDir = join(root, "state");
    const store = new ConversationStore(stateDir, createRedactor());
    const outside = join(root, "outside.json");
    writeFileSync(outside, JSON.stringify({ version: 1, id: "x", createdAt: "", updatedAt: "", turns: [] }));
    for (const id of ["../outside", "oai_../../outside", `oai_${"a".repeat(8)}/../../outside`, outside, ""]) {
      await expect(store.load(id)).rejects.toMatchObject({ code: "provider_session_not_found" });
      await expect(store.save({ version: 1, id, createdAt: "", updatedAt: "", turns: [] })).rejects.toMatchObject({ code: "provider_session_not_found" });
      await expect(store.remove(id)).rejects.toMatchObject({ code: "provider_session_not_found" });
    }
    expect(readdirSync(root).sort()).toEqual(["outside.json"]);
    const id = newSessionId();
    await store.save({ version: 1, id, createdAt: "", updatedAt: "", turns: [] });
    await expect(store.load(id)).resolves.toMatchObject({ id, turns: [] });
  });

  const said = (id: string, ...texts: string[]): ConversationFile => ({
    version: 1,
    id,
    createdAt: "",
    updatedAt: "",
    turns: texts.map((text, n) => ({ runId: `run_${n}`, startedAt: "", messages: [{ role: "user", content: [{ type: "text", text }] }] })),
  });
  const texts = (file: ConversationFile) => file.turns.map((t) => (t.messages[0]!.role === "user" ? t.messages[0]!.content : []).map((p) => (p.type === "text" ? p.text : "")).join(""));
  const journalsIn = (dir: string) => readdirSync(dir).filter((name) => name.startsWith("journal-"));

  it("reads a conversation as of its last complete save when a crash cut the journal mid-record", async () => {
    const stateDir = join(root, "torn");
    const store = new ConversationStore(stateDir, createRedactor());
    const id = newSessionId();
    const other = newSessionId();
    await store.save(said(id, "first"));
    await store.save(said(other, "other"));
    await store.save(said(id, "first", "second"));
    const [journal] = journalsIn(stateDir);
    const path = join(stateDir, journal!);
    const text = readFileSync(path, "utf8");
    // The last record cut in the middle, as a crash during its write leaves it.
    truncateSync(path, text.length - 40);
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(false);
    const reader = new ConversationStore(stateDir, createRedactor());
    expect(texts(await reader.load(id))).toEqual(["first"]);
    expect(texts(await reader.load(other))).toEqual(["other"]);
    // Cut inside the first record too: nothing complete of it is left.
    truncateSync(path, 30);
    await expect(reader.load(id)).rejects.toMatchObject({ code: "provider_session_not_found" });
  });

  it("reads the newest save of a conversation, from the journal or its own file, and folds the journal into files when closed", async () => {
    const stateDir = join(root, "newest");
    const store = new ConversationStore(stateDir, createRedactor());
    const id = newSessionId();
    const small = newSessionId();
    await store.save(said(id, "one"));
    await store.save(said(small, "small"));
    // Over the record limit: its own file, newer than the journal's record.
    const large = "x".repeat(JOURNAL_RECORD_MAX);
    await store.save(said(id, "one", large));
    expect(readdirSync(stateDir)).toContain(`${id}.json`);
    expect(texts(await store.load(id))).toEqual(["one", large]);
    // Small again (say, compacted): the journal's record is the newer one.
    await store.save(said(id, "summary"));
    expect(texts(await new ConversationStore(stateDir, createRedactor()).load(id))).toEqual(["summary"]);
    await store.close();
    expect(journalsIn(stateDir)).toEqual([]);
    expect(readdirSync(stateDir).sort()).toEqual([`${id}.json`, `${small}.json`].sort());
    const reader = new ConversationStore(stateDir, createRedactor());
    expect(texts(await reader.load(id))).toEqual(["summary"]);
    expect(texts(await reader.load(small))).toEqual(["small"]);
    // A save after the close starts a new journal; a removal is a record too.
    await store.save(said(small, "small", "again"));
    expect(texts(await reader.load(small))).toEqual(["small", "again"]);
    await store.remove(small);
    await expect(reader.load(small)).rejects.toMatchObject({ code: "provider_session_not_found" });
    await store.close();
    expect(readdirSync(stateDir)).toEqual([`${id}.json`]);
  });

  it("folds the journal a process that is gone left behind, skipping its torn last line", async () => {
    const stateDir = join(root, "orphan");
    const writer = new ConversationStore(stateDir, createRedactor());
    const id = newSessionId();
    await writer.save(said(id, "kept"));
    const [own] = journalsIn(stateDir);
    // The same records under the name of a process that no longer runs, with a torn line after them.
    const orphan = join(stateDir, `journal-${hostname()}-999999999-0000abcd.jsonl`);
    writeFileSync(orphan, readFileSync(join(stateDir, own!), "utf8"));
    appendFileSync(orphan, `{"id":"${id}","at":${Date.now() + 60_000},"file":{"version":1,"id":"${id}","tu`);
    rmSync(join(stateDir, own!));
    const later = new ConversationStore(stateDir, createRedactor());
    await later.ready();
    await later.close(); // Waits for the background fold.
    expect(readdirSync(stateDir)).toEqual([`${id}.json`]);
    expect(texts(JSON.parse(readFileSync(join(stateDir, `${id}.json`), "utf8")) as ConversationFile)).toEqual(["kept"]);
    expect(texts(await later.load(id))).toEqual(["kept"]);
  });
});
