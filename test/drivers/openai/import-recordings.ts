/**
 * Real recorded sessions for the transcript import tests: Codex (`codex app-server`) and Claude
 * Code (stream-json) each run two turns against the scripted model server in an isolated home —
 * the first with a prompt carrying an image and a secret-shaped token, reasoning, one tool call
 * and its result, the second plain text — and the file the CLI wrote is read back before the
 * home is removed. Generated in the test, so the fixtures always have the installed CLIs' format.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isNotification, withRealCli, type CliProcess } from "../../../src/testing/real-cli/index.js";

/** A 1×1 PNG. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** Secret-shaped (the redactor's `sk-` pattern): it must not reach the store or the model. */
export const CANARY = "sk-import-canary-7f3a9c21d4e8b605";

export const FIRST_PROMPT = `Please write the proof, my key is ${CANARY}`;
export const SECOND_PROMPT = "Now say goodbye";

export interface Recording {
  /** The transcript file's text. */
  text: string;
  /** Where the CLI ran (replaced in assertions that do not care). */
  workspace: string;
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path)));
    else out.push(path);
  }
  return out;
}

async function onlyFile(dir: string, match: (path: string) => boolean): Promise<string> {
  const found = (await files(dir)).filter(match);
  if (found.length !== 1) throw new Error(`expected one transcript, found ${found.length}`);
  return readFile(found[0]!, "utf8");
}

/** A Codex rollout: exec_command `echo wrote-proof`, then a plain answer. */
export async function recordCodex(): Promise<Recording> {
  const script = {
    turns: [
      { match: { lastUserTextContains: "write the proof" }, reply: { reasoning: "I should run a command.", toolCalls: [{ id: "call_proof", name: "exec_command", arguments: { cmd: "echo wrote-proof" } }] } },
      { match: { toolResultFor: "call_proof" }, reply: { text: "The proof is written." } },
      { match: { lastUserTextContains: "goodbye" }, reply: { text: "Goodbye from Codex." } },
    ],
  };
  return withRealCli("codex", script, async (ctx) => {
    const { process: proc, peer } = await ctx.spawnJsonRpc({ jsonrpcField: false });
    await peer.request("initialize", { clientInfo: { name: "import_test", title: null, version: "0.0.0" }, capabilities: null });
    await peer.notify("initialized");
    const started = await peer.request<{ thread: { id: string } }>("thread/start", { cwd: ctx.workspace });
    const turn = async (input: unknown[]) => {
      const from = proc.messages.length;
      await peer.request("turn/start", { threadId: started.thread.id, input });
      await proc.waitFor((m) => isNotification(m, "turn/completed"), { from, what: "turn/completed" });
    };
    await turn([{ type: "text", text: FIRST_PROMPT }, { type: "image", url: `data:image/png;base64,${PNG_BASE64}` }]);
    await turn([{ type: "text", text: SECOND_PROMPT }]);
    const text = await onlyFile(join(ctx.configDir, "sessions"), (p) => /rollout-.*\.jsonl$/.test(p));
    return { text, workspace: ctx.workspace };
  });
}

/** Answers every `can_use_tool` control request with allow. */
function allowTools(proc: CliProcess): void {
  proc.onMessage((m) => {
    const message = m as { type?: string; request_id?: string; request?: { subtype?: string; input?: unknown } };
    if (message.type !== "control_request" || message.request?.subtype !== "can_use_tool") return;
    proc.send({ type: "control_response", response: { subtype: "success", request_id: message.request_id, response: { behavior: "allow", updatedInput: message.request.input } } });
  });
}

/** A Claude Code transcript: Write `proof.txt`, then a plain answer. */
export async function recordClaude(): Promise<Recording> {
  const script = (dirs: { workspace: string }) => ({
    turns: [
      {
        match: { lastUserTextContains: "write the proof" },
        reply: { reasoning: "I should write the file.", toolCalls: [{ id: "toolu_proof", name: "Write", arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "proof\n" } }] },
      },
      { match: { toolResultFor: "toolu_proof" }, reply: { text: "The proof is written." } },
      { match: { lastUserTextContains: "goodbye" }, reply: { text: "Goodbye from Claude." } },
    ],
  });
  return withRealCli("claude", script, async (ctx) => {
    const proc = await ctx.spawn({ extraArgs: ["--permission-prompt-tool", "stdio", "--permission-mode", "default"] });
    allowTools(proc);
    proc.send({ type: "control_request", request_id: "init", request: { subtype: "initialize" } });
    await proc.waitFor((m) => (m as { type?: string }).type === "control_response", { what: "initialize" });
    const turn = async (content: unknown) => {
      const from = proc.messages.length;
      proc.send({ type: "user", message: { role: "user", content } });
      await proc.waitFor((m) => (m as { type?: string }).type === "result", { from, what: "result" });
    };
    await turn([{ type: "text", text: FIRST_PROMPT }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } }]);
    await turn(SECOND_PROMPT);
    const text = await onlyFile(join(ctx.configDir, "projects"), (p) => p.endsWith(".jsonl"));
    return { text, workspace: ctx.workspace };
  });
}

/** What the scripted model answers to the compaction request, and the prompts around it. */
export const SUMMARY = "SUMMARY: one exchange so far.";
export const BEFORE_COMPACTION = "the first question";
export const AFTER_COMPACTION = "the question after compaction";

/** A Codex rollout with a compaction (`thread/compact/start`) between two turns. */
export async function recordCodexCompacted(): Promise<Recording> {
  const script = {
    turns: [
      { match: { lastUserTextContains: BEFORE_COMPACTION }, reply: { text: "first answer" } },
      // The compaction turn: Codex asks for a summary with its own prompt.
      { reply: { text: SUMMARY } },
      { match: { lastUserTextContains: AFTER_COMPACTION }, reply: { text: "after answer" } },
    ],
  };
  return withRealCli("codex", script, async (ctx) => {
    const { process: proc, peer } = await ctx.spawnJsonRpc({ jsonrpcField: false });
    await peer.request("initialize", { clientInfo: { name: "import_test", title: null, version: "0.0.0" }, capabilities: null });
    await peer.notify("initialized");
    const { thread } = await peer.request<{ thread: { id: string } }>("thread/start", { cwd: ctx.workspace });
    const until = async (method: string, params: unknown) => {
      const from = proc.messages.length;
      await peer.request(method, params);
      await proc.waitFor((m) => isNotification(m, "turn/completed"), { from, what: "turn/completed" });
    };
    await until("turn/start", { threadId: thread.id, input: [{ type: "text", text: BEFORE_COMPACTION }] });
    await until("thread/compact/start", { threadId: thread.id });
    await until("turn/start", { threadId: thread.id, input: [{ type: "text", text: AFTER_COMPACTION }] });
    const text = await onlyFile(join(ctx.configDir, "sessions"), (p) => /rollout-.*\.jsonl$/.test(p));
    return { text, workspace: ctx.workspace };
  });
}

/** A Claude Code transcript with `/compact` between two turns. */
export async function recordClaudeCompacted(): Promise<Recording> {
  const script = {
    turns: [
      { match: { lastUserTextContains: BEFORE_COMPACTION }, reply: { text: "first answer" } },
      { match: { lastUserTextContains: AFTER_COMPACTION }, reply: { text: "after answer" } },
    ],
    // Claude Code's summary request (it may ask more than once): its prompt says to answer in text only.
    auxiliary: { rules: [{ match: { lastUserTextContains: "TEXT ONLY" }, reply: { text: SUMMARY } }] },
  };
  return withRealCli("claude", script, async (ctx) => {
    const proc = await ctx.spawn();
    proc.send({ type: "control_request", request_id: "init", request: { subtype: "initialize" } });
    await proc.waitFor((m) => (m as { type?: string }).type === "control_response", { what: "initialize" });
    for (const text of [BEFORE_COMPACTION, "/compact", AFTER_COMPACTION]) {
      const from = proc.messages.length;
      proc.send({ type: "user", message: { role: "user", content: text } });
      await proc.waitFor((m) => (m as { type?: string }).type === "result", { from, what: "result" });
    }
    const text = await onlyFile(join(ctx.configDir, "projects"), (p) => p.endsWith(".jsonl"));
    return { text, workspace: ctx.workspace };
  });
}

/**
 * A Claude Code transcript with an abandoned branch: two turns, then the session resumed at the
 * first answer (`--resume-session-at`, what the SDK's `resumeSessionAt` passes) with another
 * prompt. Claude Code appends the branch to the same file.
 */
export async function recordClaudeBranched(): Promise<Recording> {
  const script = {
    turns: [
      { match: { lastUserTextContains: "the first question" }, reply: { text: "first answer" } },
      { match: { lastUserTextContains: "the abandoned question" }, reply: { text: "abandoned answer" } },
      { match: { lastUserTextContains: "the branch question" }, reply: { text: "branch answer" } },
    ],
  };
  return withRealCli("claude", script, async (ctx) => {
    const session = async (extraArgs: string[], prompts: string[]): Promise<string> => {
      const proc = await ctx.spawn({ extraArgs });
      proc.send({ type: "control_request", request_id: "init", request: { subtype: "initialize" } });
      await proc.waitFor((m) => (m as { type?: string }).type === "control_response", { what: "initialize" });
      let sessionId = "";
      for (const text of prompts) {
        const from = proc.messages.length;
        proc.send({ type: "user", message: { role: "user", content: text } });
        sessionId = (await proc.waitFor<{ session_id: string }>((m) => (m as { type?: string }).type === "result", { from, what: "result" })).session_id;
      }
      await proc.stop();
      return sessionId;
    };
    const sessionId = await session([], ["the first question", "the abandoned question"]);
    const before = await onlyFile(join(ctx.configDir, "projects"), (p) => p.endsWith(".jsonl"));
    const entries = before.trim().split("\n").map((line) => JSON.parse(line) as { type?: string; uuid?: string; message?: { content?: unknown } });
    const firstAnswer = entries.find((e) => e.type === "assistant" && JSON.stringify(e.message?.content).includes("first answer"));
    if (firstAnswer?.uuid === undefined) throw new Error("the first answer is not in the transcript");
    await session(["--resume", sessionId, "--resume-session-at", firstAnswer.uuid], ["the branch question"]);
    const text = await onlyFile(join(ctx.configDir, "projects"), (p) => p.endsWith(".jsonl"));
    return { text, workspace: ctx.workspace };
  });
}
