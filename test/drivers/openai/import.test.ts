/**
 * Transcript import on the OpenAI-compatible driver: a session recorded by the real Codex and
 * Claude Code CLIs (in this test, against the scripted model server) becomes a thread of an
 * `openai()` agent, and the thread's next run sends the whole imported history — user text and
 * image, assistant text, tool call and output — in order, with the secret in the transcript
 * redacted at rest and in the request. A malformed line is skipped and counted; past `maxChars`
 * the oldest turn is left out and the model is told.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

import { createAgent, memoryThreadStore } from "../../../src/index.js";
import { importTranscript, openai, type OpenAIApi } from "../../../src/drivers/openai/index.js";
import { REDACTED, startModelServer, type CapturedPart, type CapturedRequest, type ModelServer } from "../../../src/testing/model-server/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import type { ThreadConversationsDocument } from "../../../src/drivers/openai/conversation-store.js";
import { storedStateText } from "./stored.js";
import {
  AFTER_COMPACTION,
  BEFORE_COMPACTION,
  CANARY,
  FIRST_PROMPT,
  PNG_BASE64,
  recordClaude,
  recordClaudeBranched,
  recordClaudeCompacted,
  recordCodex,
  recordCodexCompacted,
  SECOND_PROMPT,
  SUMMARY,
  type Recording,
} from "./import-recordings.js";

const root = mkdtempSync(join(tmpdir(), "openai-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function part(p: CapturedPart): string {
  switch (p.type) {
    case "text":
      return p.text;
    case "image":
      return `image(${p.mediaType}, ${p.byteLength} bytes)`;
    case "tool_call":
      return `call ${p.name} ${p.callId}`;
    case "tool_result":
      return `result ${p.callId}: ${p.text ?? ""}`;
    default:
      return p.type;
  }
}

/** The conversation a request carried, one line per message (system prompt left out). */
const history = (request: CapturedRequest): string[] => request.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.parts.map(part).join(" | ")}`);

function writeTranscript(text: string): string {
  const dir = mkdtempSync(join(root, "transcript-"));
  const file = join(dir, "session.jsonl");
  writeFileSync(file, text);
  return file;
}

/** Imports `file`, runs one more turn against the scripted server, and returns what happened. */
async function importAndContinue(api: OpenAIApi, format: "codex" | "claude", file: string, expectedLast: string, maxChars?: number) {
  server = await startModelServer({ script: { turns: [{ match: { lastUserTextContains: "next question" }, reply: { text: "next answer" } }] } });
  const stateDir = mkdtempSync(join(root, `state-${api}-`));
  const threadStore = memoryThreadStore();
  const config = { baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir };
  const driver = openai(config);
  const workspace = mkdtempSync(join(root, "workspace-"));
  const agent = createAgent(driver, { workspace, threadStore });
  const imported = await importTranscript(agent, { driver, threadStore, format, file, ...(maxChars !== undefined ? { maxChars } : {}) });
  await agent.close();
  // The conversation is in the thread store: another agent over another driver with another
  // stateDir and the same store continues the thread, and the first stateDir stays empty.
  expect(readdirSync(stateDir)).toEqual([]);
  await using later = createAgent(openai({ ...config, stateDir: mkdtempSync(join(root, `state-later-${api}-`)) }), { workspace, threadStore });
  const thread = await later.resumeThread(imported.thread.id);
  expect((await thread.info()).providerSessionId).toBe(imported.providerSessionId);
  const result = await thread.run("next question");
  expect(result.text).toBe("next answer");
  expect(result.providerSessionId).toBe(imported.providerSessionId);
  const stored = await storedStateText(threadStore, imported.thread.id);
  const requests = server.requests.filter((r) => r.dialect === (api === "chat" ? "chat" : "responses"));
  expect(requests).toHaveLength(1);
  const lines = history(requests[0]!);
  expect(lines.at(-2)).toBe(`assistant: ${expectedLast}`);
  expect(lines.at(-1)).toBe("user: next question");
  return { imported, lines, stored, request: requests[0]! };
}

const notice = (label: string) => `user: [This conversation was imported from a recorded ${label} session. Its tool calls name ${label}'s tools, which may differ from the tools you have now.]`;
const redactedPrompt = FIRST_PROMPT.replace(CANARY, REDACTED);
const image = `image(image/png, ${Buffer.from(PNG_BASE64, "base64").length} bytes)`;

const formats = [
  { format: "codex", cli: "codex", label: "Codex", record: recordCodex, recordCompacted: recordCodexCompacted, call: "call exec_command call_proof", result: /^tool: result call_proof: [\s\S]*wrote-proof/, last: "Goodbye from Codex." },
  { format: "claude", cli: "claude", label: "Claude Code", record: recordClaude, recordCompacted: recordClaudeCompacted, call: "call Write toolu_proof", result: /^tool: result toolu_proof: File created successfully/, last: "Goodbye from Claude." },
] as const;

for (const f of formats) {
  describeRealCli(f.cli, () => {
    let recording: Recording;
    beforeAll(async () => {
      recording = await f.record();
    }, 180_000);

    for (const api of ["chat", "responses"] as const) {
      it(`imports a ${f.label} session; the next ${api} request carries its whole history in order, the secret redacted`, async () => {
        const { imported, lines, stored, request } = await importAndContinue(api, f.format, writeTranscript(recording.text), f.last);
        expect(lines.slice(0, 3)).toEqual([notice(f.label), `user: ${redactedPrompt} | ${image}`, `assistant: ${f.call}`]);
        expect(lines[3]).toMatch(f.result);
        expect(lines.slice(4)).toEqual(["assistant: The proof is written.", `user: ${SECOND_PROMPT}`, `assistant: ${f.last}`, "user: next question"]);
        expect(imported).toMatchObject({ turns: 2, messages: 6, droppedMessages: 0, skippedLines: 0, media: { kept: 1, replaced: 0 } });
        // The transcript is the user's own, but the store never keeps a secret the redactor knows.
        expect(recording.text).toContain(CANARY);
        expect(stored).not.toContain(CANARY);
        expect(JSON.stringify(request.body)).not.toContain(CANARY);
        // Reasoning is kept in the stored conversation, and each turn names the model that answered it.
        const conversation = (JSON.parse(stored) as ThreadConversationsDocument).conversations.find((c) => c.id === imported.providerSessionId)!;
        const answer = conversation.turns[0]!.messages.find((m) => m.role === "assistant");
        expect(answer?.role === "assistant" ? answer.reasoning : undefined).toMatch(/^I should/);
        expect(conversation.turns.map((t) => t.model)).toEqual(["scripted-model", "scripted-model", "scripted-model"]);
      });
    }

    it(`skips and counts a malformed line of a ${f.label} transcript`, async () => {
      const lines = recording.text.trimEnd().split("\n");
      // A line cut short (a recording interrupted mid-write) and one that is JSON of the wrong shape.
      const broken = [...lines.slice(0, 2), '{"type": "response_item", "payl', ...lines.slice(2), "[1, 2, 3]"].join("\n");
      const { imported, lines: sent } = await importAndContinue("chat", f.format, writeTranscript(broken), f.last);
      expect(imported.skippedLines).toBe(2);
      expect(sent).toContain(`user: ${redactedPrompt} | ${image}`);
    });

    it(`refuses a ${f.label} import into a store that is not the agent's, or under a taken thread id, leaving no conversation behind`, async () => {
      const stateDir = mkdtempSync(join(root, "state-refused-"));
      const threadStore = memoryThreadStore();
      const driver = openai({ baseURL: "http://127.0.0.1:9/v1", model: "scripted-model", stateDir });
      await using agent = createAgent(driver, { workspace: root, threadStore });
      const file = writeTranscript(recording.text);
      const otherStore = memoryThreadStore();
      await expect(importTranscript(agent, { driver, threadStore: otherStore, format: f.format, file })).rejects.toThrow(/not the store the agent was created with/);
      await agent.startThread({ id: "taken" });
      await expect(importTranscript(agent, { driver, threadStore, format: f.format, file, threadId: "taken" })).rejects.toMatchObject({ code: "thread_exists" });
      expect(readdirSync(stateDir)).toEqual([]);
      expect((await threadStore.get("taken"))?.providerSessionId).toBeUndefined();
    });

    it(`rewinds an imported ${f.label} thread to before its first run: the imported history stays`, async () => {
      server = await startModelServer({ script: { turns: [{ reply: { text: "first run" } }, { reply: { text: "after rewind" } }] } });
      const threadStore = memoryThreadStore();
      const driver = openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: mkdtempSync(join(root, "state-rewind-")) });
      await using agent = createAgent(driver, { workspace: root, threadStore });
      const { thread } = await importTranscript(agent, { driver, threadStore, format: f.format, file: writeTranscript(recording.text) });
      await thread.run("dropped question");
      await thread.rewind(0);
      await thread.run("kept question");
      const lines = history(server.requests.filter((r) => r.dialect === "chat")[1]!);
      expect(lines).not.toContain("user: dropped question");
      expect(lines.slice(-3)).toEqual([`user: ${SECOND_PROMPT}`, `assistant: ${f.last}`, "user: kept question"]);
      expect(lines[0]).toBe(notice(f.label));
    });

    it(`leaves out the oldest turn of a ${f.label} session past maxChars, and tells the model`, async () => {
      const { imported, lines } = await importAndContinue("chat", f.format, writeTranscript(recording.text), f.last, 80);
      expect(imported.droppedMessages).toBe(4);
      expect(imported.turns).toBe(1);
      expect(lines[0]).toContain("Its 4 oldest messages were left out to keep the import within its size limit.");
      expect(lines.slice(1)).toEqual([`user: ${SECOND_PROMPT}`, `assistant: ${f.last}`, "user: next question"]);
    });

    it(`imports what a ${f.label} session continued with after a compaction: the summary, not the turns it replaced`, async () => {
      const compacted = await f.recordCompacted();
      const { lines } = await importAndContinue("chat", f.format, writeTranscript(compacted.text), "after answer");
      expect(lines[0]).toBe(notice(f.label));
      const summary = lines.findIndex((line) => line.includes(SUMMARY));
      const after = lines.findIndex((line) => line.includes(AFTER_COMPACTION));
      expect(summary).toBeGreaterThan(0);
      expect(after).toBeGreaterThan(summary);
      expect(lines).not.toContain("assistant: first answer");
      expect(lines.slice(after + 1)).toEqual(["assistant: after answer", "user: next question"]);
      // Codex's replacement history keeps the user's earlier prompt before its summary; Claude Code's summary stands alone.
      expect(lines.filter((line) => line.includes(BEFORE_COMPACTION))).toHaveLength(f.format === "codex" ? 1 : 0);
    }, 120_000);
  });
}

describeRealCli("claude", () => {
  it("imports the branch a Claude Code session continued on, not the prompt it abandoned", async () => {
    const branched = await recordClaudeBranched();
    expect(branched.text).toContain("the abandoned question");
    const { lines } = await importAndContinue("chat", "claude", writeTranscript(branched.text), "branch answer");
    expect(lines).toEqual([notice("Claude Code"), "user: the first question", "assistant: first answer", "user: the branch question", "assistant: branch answer", "user: next question"]);
  }, 120_000);

  it("takes everything written before a broken link of a Claude Code transcript's chain", async () => {
    const recording = await recordClaude();
    // The line of the second prompt is cut short: the answer's chain back to the root breaks there.
    const cut = recording.text
      .trimEnd()
      .split("\n")
      .map((line) => {
        const entry = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
        return entry.type === "user" && entry.message?.content === SECOND_PROMPT ? line.slice(0, 40) : line;
      })
      .join("\n");
    const { imported, lines } = await importAndContinue("chat", "claude", writeTranscript(cut), "Goodbye from Claude.");
    expect(imported.skippedLines).toBe(1);
    expect(lines).not.toContain(`user: ${SECOND_PROMPT}`);
    expect(lines.slice(0, 3)).toEqual([notice("Claude Code"), `user: ${redactedPrompt} | ${image}`, "assistant: call Write toolu_proof"]);
    expect(lines.slice(4)).toEqual(["assistant: The proof is written.", "assistant: Goodbye from Claude.", "user: next question"]);
  }, 120_000);
});
