/**
 * The conversation store names files only by session ids this driver gives out: an id from a
 * tampered thread store (a path, `../`) never reaches the file system.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { ConversationStore, newSessionId } from "../../../src/drivers/openai/conversation-store.js";
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
});
