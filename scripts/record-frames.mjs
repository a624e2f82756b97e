#!/usr/bin/env node
/**
 * Re-records the frames the real provider CLIs send, for the in-memory parser tests in
 * test/parsers/. Each CLI is driven through a few scripted scenarios against the scripted model
 * server (offline, on 127.0.0.1) by the real-CLI lane helpers, and every provider→client frame it
 * sent is written, one JSON value per line, to test/fixtures/frames/<target>/<scenario>.jsonl —
 * scrubbed of paths, keys, pids, varying timestamps and session ids (see `scrub` below).
 *
 *   node scripts/record-frames.mjs                 # every target
 *   node scripts/record-frames.mjs codex pi        # only these targets
 *
 * The library is compiled first (into temp/, so dist/ is left alone). A CLI that cannot run here
 * is skipped with its reason, which test/fixtures/frames/README.md then lists.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, hostname, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixtures = join(root, "test", "fixtures", "frames");
const build = join(root, "temp", "record-frames");

/** How long one scenario may take before it is given up (a CLI that hangs is reported, not waited for). */
const SCENARIO_TIMEOUT_MS = 120_000;
/** The text of a reply that streams slowly enough to be cancelled mid-turn. */
const LONG_TEXT = "This answer streams slowly, one small chunk at a time, so that the recorder can cancel the turn while the model is still talking. ".repeat(3);

// --- build --------------------------------------------------------------------------------------

function compile() {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const args = [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", join(build, "dist"), "--declaration", "false"];
  const compiled = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  if (compiled.status !== 0) {
    // Type errors do not stop the emit; report them and go on.
    const errors = `${compiled.stdout}${compiled.stderr}`.split("\n").filter((line) => /error TS\d+/.test(line));
    if (errors.length === 0) throw new Error(`compiling the library failed:\n${compiled.stdout}${compiled.stderr}`);
    console.error(`record-frames: ignoring ${errors.length} type error(s) (the emit is unaffected)`);
  }
}

// --- scrubbing ----------------------------------------------------------------------------------

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const IS_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Request ids some CLIs print as 32 hex digits. */
const HEX_ID = /\b[0-9a-f]{32}\b/g;
/** What is left of the lane's temporary root when a CLI shortens or slugs a path (`…tor-real-cli-copilot-OXwx9v`). */
const ROOT_NAME = /[\w.-]*real-cli-[a-z-]+?-[A-Za-z0-9]{6}/g;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g;
/** Keys whose values vary from run to run (clock readings, durations, pids): numbers become 0, strings `<varies>`. */
const VOLATILE_KEY = /^(pid|ppid|processId|process_id|timestamp|time|mtime|created|updated|lastUpdated)$|(At|AtMs|Ms|_at|_ms)$|^(duration|elapsed|latency|ttft)/;
/** Keys holding session-like ids that are not UUIDs everywhere. */
const SESSION_KEY = /^(sessionId|session_id|threadId|thread_id|conversationId|conversation_id|turnId|turn_id)$/;

/**
 * A scrubber for one scenario: machine paths become `<workspace>`, `<home>`, `<tmp>`, `<root>`,
 * `<repo>`, `<node>`; the key becomes `<api-key>`; the server's port `<port>`; UUIDs and session
 * ids stable fake ids in order of appearance; ISO timestamps and volatile numbers fixed values.
 */
function scrubber(ctx) {
  const port = new URL(ctx.server.url).port;
  const slug = (path) => path.replace(/[^A-Za-z0-9]/g, "-");
  const pairs = [
    [ctx.workspace, "<workspace>"],
    [slug(ctx.workspace), "<workspace-slug>"],
    [ctx.home, "<home>"],
    [ctx.tmp, "<tmp>"],
    [ctx.root, "<root>"],
    [root, "<repo>"],
    [process.execPath, "<node>"],
    [dirname(process.execPath), "<node-bin>"],
    [homedir(), "<host-home>"],
    [tmpdir(), "<host-tmp>"],
    ["sk-scripted-dummy", "<api-key>"],
    [`127.0.0.1:${port}`, "127.0.0.1:<port>"],
    [`localhost:${port}`, "localhost:<port>"],
  ].filter(([from]) => from.length > 1);
  pairs.sort((a, b) => b[0].length - a[0].length);
  const host = hostname();
  const user = userInfo().username;
  const ids = new Map();
  const fakeId = (value) => {
    let id = ids.get(value);
    if (id === undefined) {
      const n = String(ids.size + 1).padStart(12, "0");
      id = `00000000-0000-4000-8000-${n}`;
      ids.set(value, id);
    }
    return id;
  };
  const text = (value) => {
    let out = value;
    for (const [from, to] of pairs) out = out.split(from).join(to);
    if (host.length > 3) out = out.split(host).join("<host>");
    if (user.length > 3 && user !== "root") out = out.split(user).join("<user>");
    out = out.replace(ROOT_NAME, "<root>");
    out = out.replace(UUID, (m) => fakeId(m.toLowerCase()));
    out = out.replace(HEX_ID, (m) => fakeId(m));
    out = out.replace(ISO_TIME, "2000-01-01T00:00:00.000Z");
    return out;
  };
  const walk = (value, key) => {
    if (typeof value === "string") {
      if (key !== undefined && SESSION_KEY.test(key) && !IS_UUID.test(value)) return fakeId(value);
      if (key !== undefined && VOLATILE_KEY.test(key)) return "<varies>";
      if (value === host) return "<host>";
      return text(value);
    }
    if (typeof value === "number") return key !== undefined && VOLATILE_KEY.test(key) ? 0 : value;
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value !== null && typeof value === "object") {
      const out = {};
      for (const [k, v] of Object.entries(value)) out[text(k)] = walk(v, k);
      return out;
    }
    return value;
  };
  return walk;
}

// --- driving helpers ----------------------------------------------------------------------------

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON-RPC request whose response is recorded among the frames, in arrival order. */
async function call(rpc, method, params) {
  try {
    const result = await rpc.peer.request(method, params);
    rpc.process.record({ method, result: result ?? null, response: true });
    return result;
  } catch (error) {
    rpc.process.record({ method, error: { code: error?.code ?? null, message: String(error?.message ?? error) }, response: true });
    throw error;
  }
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no end within ${SCENARIO_TIMEOUT_MS} ms`)), SCENARIO_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const textTurn = { reasoning: "The user wants a greeting.", text: "Hello from the scripted model.", chunkSize: 6, usage: { input_tokens: 1200, output_tokens: 30, cached_input_tokens: 200 } };
const slowTurn = { reply: { text: LONG_TEXT, chunkSize: 4 }, fault: { dripMs: 100 } };
/** A 500 on every request: retries (where a CLI still makes them) fail the same way. */
const failingTurn = { repeat: true, fault: { status: 500, body: { error: { message: "scripted upstream failure", type: "server_error" } } } };
const toolScript = (call) => ({
  turns: [
    { match: { lastUserTextContains: "proof file" }, reply: { toolCalls: [{ id: "call_proof", ...call }] } },
    { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written.", chunkSize: 8 } },
  ],
});

// --- codex app-server ---------------------------------------------------------------------------

async function codexThread(ctx, approvals) {
  const rpc = await ctx.spawnJsonRpc({
    jsonrpcField: false,
    onRequest: (request) => (request.method.endsWith("/requestApproval") ? { decision: approvals } : undefined),
  });
  await call(rpc, "initialize", { clientInfo: { name: "agent_adaptor_recorder", title: null, version: "0.0.0" }, capabilities: null });
  await rpc.peer.notify("initialized");
  const params = { cwd: ctx.workspace, ...(approvals !== undefined ? { approvalPolicy: "untrusted" } : {}) };
  const started = await call(rpc, "thread/start", params);
  return { rpc, threadId: started.thread.id };
}

async function codexTurn(ctx, prompt, { approvals, cancel } = {}) {
  const { rpc, threadId } = await codexThread(ctx, approvals);
  const from = rpc.process.messages.length;
  const started = await call(rpc, "turn/start", { threadId, input: [{ type: "text", text: prompt }] });
  if (cancel) {
    await rpc.process.waitFor((m) => isObject(m) && m.method === "item/agentMessage/delta", { from, what: "a first delta" });
    await call(rpc, "turn/interrupt", { threadId, turnId: started.turn.id });
  }
  await rpc.process.waitFor((m) => isObject(m) && m.method === "turn/completed", { from, what: "turn/completed" });
  return rpc.process;
}

const codexScenarios = {
  text: { script: { turns: [{ reply: textTurn }] }, drive: (ctx) => codexTurn(ctx, "Say hello") },
  command: {
    script: toolScript({ name: "exec_command", arguments: { cmd: "printf 'proof' > proof.txt && echo wrote-proof" } }),
    drive: (ctx) => codexTurn(ctx, "Please write the proof file"),
  },
  approval: {
    script: toolScript({ name: "exec_command", arguments: { cmd: "printf 'proof' > proof.txt && echo wrote-proof" } }),
    drive: (ctx) => codexTurn(ctx, "Please write the proof file", { approvals: "accept" }),
  },
  cancel: { script: { turns: [slowTurn] }, drive: (ctx) => codexTurn(ctx, "Tell a long story", { cancel: true }) },
  error: { script: { turns: [failingTurn] }, drive: (ctx) => codexTurn(ctx, "This turn fails") },
};

// --- stream-json (Claude Code, CodeBuddy) -------------------------------------------------------

function streamJsonScenarios(allow, deny) {
  async function turn(ctx, prompt, { decision, cancel } = {}) {
    const extraArgs = ["--include-partial-messages", ...(ctx.cli === "claude" ? ["--permission-prompt-tool", "stdio"] : []), "--permission-mode", "default"];
    const proc = await ctx.spawn({ extraArgs });
    proc.onMessage((m) => {
      if (!isObject(m) || m.type !== "control_request" || !isObject(m.request) || m.request.subtype !== "can_use_tool") return;
      const response = decision === "deny" ? deny : allow(m.request.input);
      proc.send({ type: "control_response", response: { subtype: "success", request_id: m.request_id, response } });
    });
    proc.send({ type: "control_request", request_id: "recorder_init", request: { subtype: "initialize" } });
    await proc.waitFor((m) => isObject(m) && m.type === "control_response", { what: "initialize response" });
    const from = proc.messages.length;
    proc.send({ type: "user", message: { role: "user", content: prompt } });
    if (cancel) {
      await proc.waitFor((m) => isObject(m) && m.type === "stream_event" && isObject(m.event) && m.event.type === "content_block_delta", { from, what: "a first delta" });
      proc.send({ type: "control_request", request_id: "recorder_interrupt", request: { subtype: "interrupt" } });
    }
    await proc.waitFor((m) => isObject(m) && m.type === "result", { from, what: "result" });
    return proc;
  }
  return {
    text: { script: { turns: [{ reply: textTurn }] }, drive: (ctx) => turn(ctx, "Say hello") },
    command: {
      script: toolScript({ name: "Bash", arguments: { command: "printf 'proof' > proof.txt && echo wrote-proof", description: "Write the proof file" } }),
      drive: (ctx) => turn(ctx, "Please write the proof file", { decision: "allow" }),
    },
    approval: {
      script: (dirs) => toolScript({ name: "Write", arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "proof\n" } }),
      drive: (ctx) => turn(ctx, "Please write the proof file", { decision: "allow" }),
    },
    denied: {
      script: (dirs) => toolScript({ name: "Write", arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "proof\n" } }),
      drive: (ctx) => turn(ctx, "Please write the proof file", { decision: "deny" }),
    },
    cancel: { script: { turns: [slowTurn] }, drive: (ctx) => turn(ctx, "Tell a long story", { cancel: true }) },
    error: { script: { turns: [failingTurn] }, drive: (ctx) => turn(ctx, "This turn fails") },
  };
}

const claudeScenarios = streamJsonScenarios((input) => ({ behavior: "allow", updatedInput: input }), { behavior: "deny", message: "denied by the recorder" });
const codebuddyScenarios = streamJsonScenarios((input) => ({ allowed: true, updatedInput: input }), { allowed: false, reason: "denied by the recorder" });

// --- ACP agents ---------------------------------------------------------------------------------

function answerPermission(kinds) {
  return (request) => {
    if (request.method !== "session/request_permission") return undefined;
    const options = Array.isArray(request.params?.options) ? request.params.options : [];
    const option = kinds.map((k) => options.find((o) => o.kind === k)).find((o) => o !== undefined);
    return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : { outcome: { outcome: "cancelled" } };
  };
}

async function acpTurn(ctx, prompt, { reject, cancel } = {}) {
  const rpc = await ctx.spawnJsonRpc({ jsonrpcField: true, onRequest: answerPermission(reject ? ["reject_once", "reject_always"] : ["allow_once", "allow_always"]) });
  await call(rpc, "initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const { sessionId } = await call(rpc, "session/new", { cwd: ctx.workspace, mcpServers: [] });
  const from = rpc.process.messages.length;
  const prompted = call(rpc, "session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] }).catch(() => undefined);
  if (cancel) {
    await rpc.process.waitFor((m) => isObject(m) && m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk", { from, what: "a first chunk" });
    await rpc.peer.notify("session/cancel", { sessionId });
  }
  await prompted;
  return rpc.process;
}

function acpScenarios(toolCall) {
  return {
    text: { script: { turns: [{ reply: textTurn }] }, drive: (ctx) => acpTurn(ctx, "Say hello") },
    tool: { script: (dirs) => toolScript(toolCall(dirs)), drive: (ctx) => acpTurn(ctx, "Please write the proof file") },
    denied: { script: (dirs) => toolScript(toolCall(dirs)), drive: (ctx) => acpTurn(ctx, "Please write the proof file", { reject: true }) },
    cancel: { script: { turns: [slowTurn] }, drive: (ctx) => acpTurn(ctx, "Tell a long story", { cancel: true }) },
    error: { script: { turns: [failingTurn] }, drive: (ctx) => acpTurn(ctx, "This turn fails") },
  };
}

// --- pi --mode rpc ------------------------------------------------------------------------------

async function piTurn(ctx, prompt, { cancel } = {}) {
  const proc = await ctx.spawn();
  const command = async (id, payload) => {
    proc.send({ id, ...payload });
    return proc.waitFor((m) => isObject(m) && m.type === "response" && m.id === id, { what: `response ${id}` });
  };
  await command("state", { type: "get_state" });
  // As the driver does: Pi's own retry would announce itself only after agent_end.
  await command("retry", { type: "set_auto_retry", enabled: false });
  const from = proc.messages.length;
  proc.send({ id: "prompt", type: "prompt", message: prompt });
  if (cancel) {
    await proc.waitFor((m) => isObject(m) && m.type === "message_update" && m.assistantMessageEvent?.type === "text_delta", { from, what: "a first delta" });
    proc.send({ id: "abort", type: "abort" });
  }
  await proc.waitFor((m) => isObject(m) && m.type === "agent_end", { from, what: "agent_end" });
  if (cancel) await proc.waitFor((m) => isObject(m) && m.type === "response" && m.id === "abort", { from, what: "abort response" });
  return proc;
}

const piScenarios = {
  text: { script: { turns: [{ reply: textTurn }] }, drive: (ctx) => piTurn(ctx, "Say hello") },
  command: { script: toolScript({ name: "bash", arguments: { command: "printf 'proof' > proof.txt && echo wrote-proof" } }), drive: (ctx) => piTurn(ctx, "Please write the proof file") },
  cancel: { script: { turns: [slowTurn] }, drive: (ctx) => piTurn(ctx, "Tell a long story", { cancel: true }) },
  error: { script: { turns: [failingTurn] }, drive: (ctx) => piTurn(ctx, "This turn fails") },
};

// --- targets ------------------------------------------------------------------------------------

const TARGETS = [
  { dir: "codex", cli: "codex", scenarios: codexScenarios },
  { dir: "claude", cli: "claude", scenarios: claudeScenarios },
  { dir: "codebuddy", cli: "codebuddy", scenarios: codebuddyScenarios },
  {
    dir: "acp-gemini",
    cli: "gemini",
    scenarios: {
      ...acpScenarios(() => ({ name: "run_shell_command", arguments: { command: "printf 'proof' > proof.txt && echo wrote-proof", description: "write the proof file" } })),
      // Gemini CLI retries a 500 with backoff for minutes; a 400 fails the turn at once.
      error: { script: { turns: [{ ...failingTurn, fault: { ...failingTurn.fault, status: 400 } }] }, drive: (ctx) => acpTurn(ctx, "This turn fails") },
    },
  },
  { dir: "acp-copilot", cli: "copilot", scenarios: acpScenarios((dirs) => ({ name: "create", arguments: { path: join(dirs.workspace, "proof.txt"), file_text: "proof" } })) },
  { dir: "acp-codex", cli: "codex-acp", scenarios: acpScenarios(() => ({ name: "exec_command", arguments: { cmd: "printf 'proof' > proof.txt && echo wrote-proof" } })) },
  { dir: "acp-claude", cli: "claude-agent-acp", scenarios: acpScenarios((dirs) => ({ name: "Write", arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "proof\n" } })) },
  { dir: "acp-qwen", cli: "qwen", scenarios: acpScenarios(() => ({ name: "run_shell_command", arguments: { command: "printf 'proof' > proof.txt" } })) },
  { dir: "pi", cli: "pi", scenarios: piScenarios },
];

async function recordTarget(testing, target) {
  const availability = testing.realCliAvailability(target.cli);
  if (!availability.available) return { ...target, skipped: availability.reason, recorded: [], failed: [] };
  const recorded = [];
  const failed = [];
  const dir = join(fixtures, target.dir);
  mkdirSync(dir, { recursive: true });
  for (const [name, scenario] of Object.entries(target.scenarios)) {
    try {
      const lines = await testing.withRealCli(target.cli, scenario.script, async (ctx) => {
        const proc = await withTimeout(scenario.drive(ctx), `${target.dir}/${name}`);
        const scrub = scrubber(ctx);
        return proc.messages.map((m) => JSON.stringify(scrub(m)));
      });
      writeFileSync(join(dir, `${name}.jsonl`), `${lines.join("\n")}\n`);
      recorded.push({ name, frames: lines.length });
      console.error(`record-frames: ${target.dir}/${name}.jsonl — ${lines.length} frames`);
    } catch (error) {
      failed.push({ name, reason: String(error?.message ?? error).split("\n")[0] });
      console.error(`record-frames: ${target.dir}/${name} failed — ${String(error?.message ?? error)}`);
    }
  }
  return { ...target, version: availability.version, recorded, failed };
}

// --- the fixture README -------------------------------------------------------------------------

function readme(results) {
  const rows = results.map((r) => {
    const scenarios = r.recorded.map((s) => `${s.name} (${s.frames})`).join(", ") || "—";
    const notes = r.skipped !== undefined ? `not recorded: ${r.skipped}` : r.failed.map((f) => `${f.name} failed: ${f.reason}`).join("; ");
    return `| \`${r.dir}/\` | ${r.cli} ${r.version ?? ""} | ${scenarios} | ${notes.replace(/\|/g, "\\|")} |`;
  });
  return [
    "# Recorded provider frames",
    "",
    "Frames the real provider CLIs sent to their client, recorded by `node scripts/record-frames.mjs`",
    "against the scripted model server (offline) and read by the in-memory parser tests in",
    "`test/parsers/`. Do not edit them by hand: re-record them.",
    "",
    "Each `<target>/<scenario>.jsonl` holds one frame per line, in the order the CLI sent them:",
    "",
    "- JSON-RPC CLIs (Codex app-server, ACP agents): `{method, params}` for a notification,",
    "  `{method, params, request: true}` for a server→client request (approvals), and",
    "  `{method, result, response: true}` (or `error`) for the answer to one of the recorder's requests.",
    "- NDJSON CLIs (Claude Code, CodeBuddy, Pi): each stdout message exactly as it was read.",
    "",
    "Scrubbed: machine paths (`<workspace>`, `<workspace-slug>`, `<home>`, `<tmp>`, `<root>`, `<repo>`, `<node>`), the dummy",
    "API key (`<api-key>`), the server port (`<port>`), session/thread/turn ids and every UUID (stable fake",
    "ids `00000000-0000-4000-8000-…` in order of appearance, as are 32-hex request ids), ISO timestamps, durations and pids.",
    "",
    "Scenarios: `text` (reasoning, a streamed reply, usage), `command` / `tool` (a shell or file tool the",
    "model calls), `approval` (a tool the client approves), `denied` (a tool the client refuses),",
    "`cancel` (cancelled mid-stream), `error` (the model endpoint answers HTTP 500; 400 for Gemini CLI,",
    "which retries a 500 with backoff for minutes).",
    "",
    "| target | CLI | scenarios (frames) | notes |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

// --- main ---------------------------------------------------------------------------------------

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !TARGETS.some((t) => t.dir === w || t.cli === w));
if (unknown.length > 0) {
  console.error(`usage: node scripts/record-frames.mjs [target...]\ntargets: ${TARGETS.map((t) => t.dir).join(", ")}`);
  process.exit(2);
}
compile();
const testing = await import(pathToFileURL(join(build, "dist", "testing", "index.js")).href);
const readmePath = join(fixtures, "README.md");
/** What the last recording found per target, kept for the targets not re-recorded now. */
const previous = new Map();
try {
  for (const entry of JSON.parse(readFileSync(join(fixtures, "recorded.json"), "utf8"))) previous.set(entry.dir, entry);
} catch {
  // the first recording
}
const results = [];
for (const target of TARGETS) {
  if (wanted.length > 0 && !wanted.includes(target.dir) && !wanted.includes(target.cli)) {
    if (previous.has(target.dir)) results.push(previous.get(target.dir));
    continue;
  }
  // Stale scenarios of a re-recorded target go.
  rmSync(join(fixtures, target.dir), { recursive: true, force: true });
  const result = await recordTarget(testing, target);
  delete result.scenarios;
  results.push(result);
}
mkdirSync(fixtures, { recursive: true });
writeFileSync(join(fixtures, "recorded.json"), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(readmePath, readme(results));
if (results.every((r) => r.recorded.length === 0)) process.exitCode = 1;
