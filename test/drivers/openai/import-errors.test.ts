/**
 * Transcript import refusals: typed errors that name the file by its basename only, and nothing
 * left behind (no conversation file, no thread) when the import is refused. And the media rule:
 * an image that is not inline base64 of a type the driver sends becomes a placeholder that names
 * no URL.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { ConfigError, createAgent, InputError, memoryThreadStore } from "../../../src/index.js";
import { importTranscript, openai } from "../../../src/drivers/openai/index.js";
import { ImportedMedia } from "../../../src/drivers/openai/import/media.js";
import { STORED_MEDIA_MAX } from "../../../src/drivers/openai/conversation-store.js";

const root = mkdtempSync(join(tmpdir(), "openai-import-errors-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const secretDir = join(root, "private-dir-name");
mkdirSync(secretDir);

function setup() {
  const stateDir = mkdtempSync(join(root, "state-"));
  const threadStore = memoryThreadStore();
  // Never contacted: every import here is refused before a run.
  const driver = openai({ baseURL: "http://127.0.0.1:9/v1", model: "scripted-model", stateDir });
  const agent = createAgent(driver, { workspace: root, threadStore });
  return { stateDir, threadStore, driver, agent };
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("importTranscript refusals", () => {
  it("refuses an unknown format with ConfigError", async () => {
    const { driver, threadStore, agent } = setup();
    await using _ = agent;
    const file = join(secretDir, "a.jsonl");
    writeFileSync(file, "{}\n");
    const error = await refusal(importTranscript(agent, { driver, threadStore, format: "gemini" as "codex", file }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain("format");
  });

  it("refuses a file that cannot be read, naming only its basename", async () => {
    const { driver, threadStore, agent, stateDir } = setup();
    await using _ = agent;
    const error = await refusal(importTranscript(agent, { driver, threadStore, format: "codex", file: join(secretDir, "rollout-missing.jsonl") }));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe("input_materialization_failed");
    expect(error.message).toContain("rollout-missing.jsonl");
    expect(error.message).not.toContain("private-dir-name");
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it("refuses a directory or a FIFO without waiting on it", async () => {
    const { driver, threadStore, agent } = setup();
    await using _ = agent;
    const fifo = join(secretDir, "pipe.jsonl");
    execFileSync("mkfifo", [fifo]);
    for (const file of [secretDir, fifo]) {
      const error = await refusal(importTranscript(agent, { driver, threadStore, format: "claude", file }));
      expect(error).toMatchObject({ code: "input_materialization_failed" });
    }
  });

  it("refuses a file over maxBytes with input_too_large before reading it", async () => {
    const { driver, threadStore, agent, stateDir } = setup();
    await using _ = agent;
    const file = join(secretDir, "big.jsonl");
    writeFileSync(file, `${JSON.stringify({ type: "session_meta", payload: { note: "x".repeat(2000) } })}\n`);
    const error = await refusal(importTranscript(agent, { driver, threadStore, format: "codex", file, maxBytes: 1024 }));
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code: "input_too_large", limit: 1024 });
    expect(error.message).toContain("big.jsonl");
    expect(error.message).not.toContain("private-dir-name");
    expect(error.message).not.toContain("xxxx");
    expect(readdirSync(stateDir)).toEqual([]);
    expect(await threadStore.list()).toEqual([]);
  });

  it("refuses a file with no conversation of the format (input_invalid), creating nothing", async () => {
    const { driver, threadStore, agent, stateDir } = setup();
    await using _ = agent;
    const file = join(secretDir, "empty.jsonl");
    writeFileSync(file, "not json at all\n[1]\n");
    for (const format of ["codex", "claude"] as const) {
      const error = await refusal(importTranscript(agent, { driver, threadStore, format, file }));
      expect(error).toMatchObject({ code: "input_invalid" });
      expect(error.message).toContain("empty.jsonl");
    }
    expect(readdirSync(stateDir)).toEqual([]);
    expect(await threadStore.list()).toEqual([]);
  });

  it("refuses a driver not made by openai() and an agent over another driver", async () => {
    const { driver, threadStore, agent } = setup();
    await using _ = agent;
    const file = join(secretDir, "any.jsonl");
    writeFileSync(file, "{}\n");
    const notOurs = await refusal(importTranscript(agent, { driver: { ...driver }, threadStore, format: "codex", file }));
    expect(notOurs).toBeInstanceOf(ConfigError);
    const otherAgent = { driver: { id: "codex" }, startThread: () => Promise.reject(new Error("not called")) };
    const otherDriver = await refusal(importTranscript(otherAgent, { driver, threadStore, format: "codex", file }));
    expect(otherDriver).toBeInstanceOf(ConfigError);
    expect(otherDriver.message).toContain("openai() driver");
  });
});

describe("imported media", () => {
  it("keeps inline base64 images of the driver's types within the store's limit", () => {
    const media = new ImportedMedia();
    expect(media.imageUrl("data:image/png;base64,iVBORw0KGgo=")).toEqual({ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" });
    expect(media.counts).toEqual({ kept: 1, replaced: 0 });
  });

  it("replaces an image by URL, of another type, or over the limit with a placeholder naming no URL", () => {
    const media = new ImportedMedia();
    const byUrl = media.imageUrl("https://example.invalid/secret-path/cat.png");
    const tiff = media.image("image/tiff", "AAAA");
    const huge = media.image("image/png", "A".repeat(STORED_MEDIA_MAX + 4));
    for (const part of [byUrl, tiff, huge]) {
      expect(part.type).toBe("text");
      expect(part.type === "text" && part.text).toMatch(/^\[.* was in the recorded session; it is not part of the imported conversation\]$/);
    }
    expect(JSON.stringify(byUrl)).not.toContain("secret-path");
    expect(media.counts).toEqual({ kept: 0, replaced: 3 });
  });
});

describe("importTranscript without the driver and store arguments", () => {
  /** A two-line Codex rollout: one prompt and its answer. */
  const rollout = [
    { timestamp: "2026-12-01T10:00:00.000Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "what is in the repo?" }] } },
    { timestamp: "2026-12-01T10:00:01.000Z", type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "a README" }] } },
  ].map((line) => JSON.stringify(line)).join("\n");

  it("takes the agent's own driver and thread store, and writes the conversation into the store", async () => {
    const { threadStore, agent, stateDir } = setup();
    await using _ = agent;
    const file = join(secretDir, "rollout-short.jsonl");
    writeFileSync(file, rollout);
    const imported = await importTranscript(agent, { format: "codex", file });
    expect(imported).toMatchObject({ turns: 1, messages: 2 });
    expect((await threadStore.get(imported.thread.id))?.providerSessionId).toBe(imported.providerSessionId);
    const stored = JSON.parse((await threadStore.loadProviderState!(imported.thread.id))!) as { current: string; conversations: { id: string }[] };
    expect(stored.current).toBe(imported.providerSessionId);
    expect(stored.conversations.map((c) => c.id)).toEqual([imported.providerSessionId]);
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it("refuses a driver or a store given that is not the agent's, leaving nothing behind", async () => {
    const { threadStore, agent, stateDir } = setup();
    await using _ = agent;
    const file = join(secretDir, "rollout-short-2.jsonl");
    writeFileSync(file, rollout);
    const otherDriver = openai({ baseURL: "http://127.0.0.1:9/v1", model: "scripted-model", stateDir });
    const byDriver = await refusal(importTranscript(agent, { driver: otherDriver, format: "codex", file }));
    expect(byDriver).toBeInstanceOf(ConfigError);
    expect(byDriver.message).toContain("the openai() driver the agent was created with");
    const byStore = await refusal(importTranscript(agent, { threadStore: memoryThreadStore(), format: "codex", file }));
    expect(byStore.message).toContain("not the store the agent was created with");
    expect(await threadStore.list()).toEqual([]);
    expect(readdirSync(stateDir)).toEqual([]);
  });
});
