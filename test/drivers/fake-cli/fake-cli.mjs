// A fake Claude Code / CodeBuddy Code speaking the headless stream-json control protocol with the
// wire shapes each real CLI uses. The first line of the installed copy sets DIALECT.
// Scenario (env FAKE_CLI_SCENARIO): normal | exit-before-init | auth-missing | empty-commands | hang-init
// | malformed-commands | unknown-mcp-status.
// Turn behaviour is chosen by markers in the prompt: [[think]] [[write]] [[bash]] [[todo]] [[ask]]
// [[mcp]] [[task]] [[slow]] [[unfinished]] [[malformed]] [[exit-mid-turn]] [[error]] [[auth]] [[blocks]] [[history]]
// [[leak]] [[leak-mcp]] [[malformed-flood]] [[untyped]] [[stubborn]] [[linger]].
// [[stubborn]] streams deltas until killed, ignoring interrupt, stdin end and SIGTERM; [[linger]]
// answers normally but then ignores SIGTERM and, once its input ends, exits only when the file
// FAKE_CLI_RELEASE_FILE exists.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";

/* global DIALECT */
const dialect = typeof DIALECT === "string" ? DIALECT : process.env.FAKE_CLI_DIALECT ?? "claude";
const claude = dialect === "claude";
const scenario = process.env.FAKE_CLI_SCENARIO ?? "normal";
const argv = process.argv.slice(2);
const arg = (name) => {
  const joined = argv.find((a) => a.startsWith(`${name}=`));
  if (joined !== undefined) return joined.slice(name.length + 1);
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const configDir = process.env[claude ? "CLAUDE_CONFIG_DIR" : "CODEBUDDY_CONFIG_DIR"];
const apiKey = process.env[claude ? "ANTHROPIC_API_KEY" : "CODEBUDDY_API_KEY"];
const log = (entry) => {
  if (process.env.FAKE_CLI_LOG) appendFileSync(process.env.FAKE_CLI_LOG, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
};
log({
  event: "spawn",
  argv,
  cwd: process.cwd(),
  env: {
    hasKey: apiKey !== undefined,
    baseUrl: process.env[claude ? "ANTHROPIC_BASE_URL" : "CODEBUDDY_BASE_URL"] ?? null,
    authToken: process.env.ANTHROPIC_AUTH_TOKEN ?? null,
    autoupdater: process.env.DISABLE_AUTOUPDATER ?? null,
    leaked: process.env.FAKE_HOST_SECRET ?? null,
  },
});

if (scenario === "exit-before-init") {
  process.stderr.write("fatal: the fake CLI refuses to start\n");
  process.exit(3);
}

// --mcp-config names a file (or, as the CLIs also accept, holds JSON). Logged: the path, its mode and
// the servers by name with their env/header names (never values).
const mcpArg = arg("--mcp-config");
const mcpConfig = mcpArg === undefined ? {} : JSON.parse(mcpArg.startsWith("{") ? mcpArg : readFileSync(mcpArg, "utf8"));
if (mcpArg !== undefined) {
  log({
    event: "mcp-config",
    path: mcpArg.startsWith("{") ? null : mcpArg,
    mode: mcpArg.startsWith("{") ? null : (statSync(mcpArg).mode & 0o777).toString(8),
    dirMode: mcpArg.startsWith("{") ? null : (statSync(dirname(mcpArg)).mode & 0o777).toString(8),
    strict: argv.includes("--strict-mcp-config"),
    servers: Object.fromEntries(
      Object.entries(mcpConfig.mcpServers ?? {}).map(([name, s]) => [name, { type: s.type, env: Object.keys(s.env ?? {}), headers: Object.keys(s.headers ?? {}), url: s.url ?? null }]),
    ),
  });
}
// --plugin-dir: the plugin's files (relative paths) as the CLI would load them.
const pluginDir = arg("--plugin-dir");
if (pluginDir !== undefined) {
  const files = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${rel}${entry.name}/`);
      else files.push(`${rel}${entry.name}`);
    }
  };
  walk(pluginDir, "");
  log({ event: "plugin-dir", path: pluginDir, files: files.sort(), skill: existsSync(join(pluginDir, "skills")) ? readdirSync(join(pluginDir, "skills")) : [] });
}
// Like the real CLIs, the stdio MCP servers of --mcp-config are started when the process starts,
// and a turn waits until they are up (here: until each one-shot server has exited).
const mcpStarted = Promise.all(
  Object.values(mcpConfig.mcpServers ?? {})
    .filter((server) => server.type === "stdio" && server.command)
    .map((server) => new Promise((resolve) => spawn(server.command, server.args ?? [], { stdio: "ignore", env: { ...process.env, ...server.env } }).on("exit", resolve).on("error", resolve))),
);

const out = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const slug = (cwd) => (claude ? cwd.replace(/[^a-zA-Z0-9]/g, "-") : cwd.replace(/^\/+/, "").replace(/[^a-zA-Z0-9]/g, "-"));
const permissionMode = arg("--permission-mode") ?? "default";
const promptToolStdio = arg("--permission-prompt-tool") === "stdio";
const partial = argv.includes("--include-partial-messages");
const model = arg("--model") ?? "fake-model";

let sessionId;
let history = [];
let sessionFile;
let interrupted = false;
let busy = Promise.resolve();
const pending = new Map();
let nextRequest = 0;

function openSession() {
  if (sessionId) return;
  const resume = arg("--resume");
  const fork = argv.includes("--fork-session");
  if (resume && configDir) {
    const file = join(configDir, "projects", slug(process.cwd()), `${resume}.jsonl`);
    if (!existsSync(file)) {
      process.stderr.write(`No conversation found with session ID: ${resume}\n`);
      sessionId = resume;
      return "missing";
    }
    history = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    sessionId = fork ? randomUUID() : resume;
  } else {
    sessionId = randomUUID();
  }
  if (configDir) {
    const dir = join(configDir, "projects", slug(process.cwd()));
    mkdirSync(dir, { recursive: true });
    sessionFile = join(dir, `${sessionId}.jsonl`);
    writeFileSync(sessionFile, history.map((h) => `${JSON.stringify(h)}\n`).join(""));
  }
}

function record(prompt) {
  history.push({ prompt });
  if (sessionFile) appendFileSync(sessionFile, `${JSON.stringify({ prompt })}\n`);
}

function initializeReply() {
  const commands =
    scenario === "empty-commands"
      ? []
      : scenario === "malformed-commands"
        ? "not a list"
      : claude
        ? [
            { name: "review", description: "Review a pull request", argumentHint: "<pr>" },
            { name: "compact", description: "Compact the conversation", argumentHint: "" },
          ]
        : [
            { name: "/help", description: "Show help" },
            { name: "/review", description: "Review code" },
          ];
  if (claude) {
    const account = scenario === "auth-missing" || !apiKey ? { tokenSource: "none", apiProvider: "firstParty" } : { tokenSource: "none", apiKeySource: "ANTHROPIC_API_KEY", apiProvider: "firstParty" };
    return {
      commands,
      agents: [{ name: "general-purpose" }],
      output_style: "default",
      available_output_styles: ["default", "Concise"],
      models: [
        { value: "default", displayName: "Default (recommended)", description: "The default model", supportsEffort: true, supportedEffortLevels: ["low", "medium", "high"] },
        { value: "fake-sonnet", displayName: "Fake Sonnet", description: "A fake model" },
      ],
      account,
      pid: process.pid,
      claude_code_version: "9.9.9-fake",
      current_permission_mode: permissionMode,
      capabilities: ["interrupt_receipt_v1"],
    };
  }
  const account = scenario === "auth-missing" || !apiKey ? null : { uid: `anonymous_${apiKey.slice(-8)}`, nickname: `anonymous_${apiKey.slice(-8)}`, type: "personal", token: apiKey };
  return { commands, output_style: "default", available_output_styles: ["Default"], models: [{ id: "default-model", name: "Default" }, { id: "fake-model", name: "Fake Model" }], account, currentModelId: "default-model" };
}

function answerControl(id, response) {
  out({ type: "control_response", response: { subtype: "success", request_id: id, response } });
}
function failControl(id, error) {
  out({ type: "control_response", response: { subtype: "error", request_id: id, error } });
}

function onControl(message) {
  const { request_id: id, request } = message;
  switch (request.subtype) {
    case "initialize":
      log({ event: "initialize", request });
      if (scenario === "hang-init") return;
      answerControl(id, initializeReply());
      // CodeBuddy: a resumed process told no prompt follows replays the history, then a result.
      if (!claude && arg("--resume") && request.hasPrompt !== true && openSession() !== "missing") {
        for (const h of history) out({ type: "user", message: { role: "user", content: h.prompt }, parent_tool_use_id: null, ...base() });
        result("");
      }
      return;
    case "mcp_status":
      if (scenario === "unknown-mcp-status") return failControl(id, `${claude ? "Unsupported" : "Unknown"} control request subtype: mcp_status`);
      return claude ? answerControl(id, { mcpServers: [{ name: "docs", status: "connected", tools: [{ name: "search" }] }] }) : failControl(id, "Unknown control request subtype: mcp_status");
    case "get_settings":
      return claude ? answerControl(id, { effective: {}, sources: [], applied: { model: "fake-opus", effort: "medium" } }) : failControl(id, "Unknown control request subtype: get_settings");
    case "interrupt":
      log({ event: "interrupt", session: sessionId ?? null });
      if (!claude && !sessionId) return failControl(id, "Session not found: current");
      interrupted = true;
      return answerControl(id, claude ? { still_queued: [] } : { session_id: sessionId, interrupted: true, reason: "SDK request" });
    default:
      return claude ? failControl(id, `Unsupported control request subtype: ${request.subtype}`) : failControl(id, `Unknown control request subtype: ${request.subtype}`);
  }
}

function ask(request) {
  const id = claude ? randomUUID() : `perm_${Date.now()}_${++nextRequest}`;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    out({ type: "control_request", request_id: id, request });
  });
}

/** The permission answer as this dialect reads it: true = allowed. */
function allowed(answer) {
  if (!answer || answer.subtype !== "success") return { ok: false, text: "Tool permission request failed" };
  const payload = answer.response ?? {};
  if (claude) {
    if (payload.behavior === "allow") return { ok: true, input: payload.updatedInput };
    return { ok: false, text: payload.message ?? "denied", shape: payload.behavior === "deny" ? "claude" : "other" };
  }
  // CodeBuddy reads `allowed`; a Claude-shaped answer is a silent denial.
  if (payload.allowed === true) return { ok: true, input: payload.updatedInput };
  return { ok: false, text: "The user doesn't want to proceed with this tool use.", shape: "allowed" in payload ? "codebuddy" : "other" };
}

const base = () => ({ session_id: sessionId, uuid: randomUUID() });
let msgCounter = 0;

async function streamText(text, { drip = 0, kind = "text" } = {}) {
  const id = `msg_fake_${++msgCounter}`;
  const chunks = text.match(/.{1,6}/gs) ?? [""];
  if (partial) {
    out({ type: "stream_event", event: { type: "message_start", message: { id, type: "message", role: "assistant", content: [] } }, parent_tool_use_id: null, ...base() });
    out({ type: "stream_event", event: { type: "content_block_start", index: 0, content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" } }, parent_tool_use_id: null, ...base() });
    for (const chunk of chunks) {
      if (interrupted) break;
      const delta = kind === "text" ? { type: "text_delta", text: chunk } : { type: "thinking_delta", thinking: chunk };
      out({ type: "stream_event", event: { type: "content_block_delta", index: 0, delta }, parent_tool_use_id: null, ...base() });
      if (drip) await sleep(drip);
    }
  }
  const block = kind === "text" ? { type: "text", text } : { type: "thinking", thinking: text, signature: "sig" };
  out({ type: "assistant", message: { id, type: "message", role: "assistant", model, content: [block], stop_reason: null, usage: { input_tokens: 10, output_tokens: 5 } }, parent_tool_use_id: null, ...base() });
  if (partial) out({ type: "stream_event", event: { type: "content_block_stop", index: 0 }, parent_tool_use_id: null, ...base() });
}

function toolUse(id, name, input, parent = null) {
  out({ type: "assistant", message: { id: `msg_fake_${++msgCounter}`, type: "message", role: "assistant", model, content: [{ type: "tool_use", id, name, input }], stop_reason: null, usage: { input_tokens: 10, output_tokens: 5 } }, parent_tool_use_id: parent, ...base() });
}

function toolResult(id, content, isError = false) {
  out({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }] }, parent_tool_use_id: claude ? null : id, ...base() });
}

function result(text, extra = {}) {
  out({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    num_turns: 1,
    duration_ms: 12,
    total_cost_usd: claude ? 0.0012 : 0,
    usage: { input_tokens: 84, output_tokens: 34, cache_read_input_tokens: 7, cache_creation_input_tokens: 3 },
    ...(claude ? { modelUsage: { [model]: { inputTokens: 184, outputTokens: 64, cacheReadInputTokens: 7, cacheCreationInputTokens: 3, webSearchRequests: 0, costUSD: 0.0012, contextWindow: 200000, maxOutputTokens: 64000 } } } : {}),
    permission_denials: [],
    ...base(),
    ...extra,
  });
}

/** Runs a tool that needs permission, in the order this dialect uses. */
async function guardedTool(id, name, input) {
  const request = { subtype: "can_use_tool", tool_name: name, input, tool_use_id: id, description: `${name} wants to run` };
  if (!claude) {
    // CodeBuddy: the permission request comes first, while the model response is still being
    // processed; the real CLI can wedge when answered before the tool call is out.
    let toolUseSent = false;
    let early = false;
    const answer = ask(request).then((a) => ((early = !toolUseSent), a));
    await sleep(150);
    toolUse(id, name, input);
    toolUseSent = true;
    return { ...allowed(await answer), early };
  }
  toolUse(id, name, input);
  if (!promptToolStdio) {
    out({ type: "system", subtype: "permission_denied", tool_name: name, tool_use_id: id, decision_reason_type: "mode", ...base() });
    return { ok: false, text: "Claude requested permissions, but you haven't granted it yet." };
  }
  return allowed(await ask(request));
}

async function turn(message) {
  const content = message.message?.content;
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
  const prompt = blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
  interrupted = false;
  await mcpStarted;
  if (openSession() === "missing") {
    result("", { subtype: "error_during_execution", is_error: true, errors: [`No conversation found with session ID: ${sessionId}`] });
    return;
  }
  const earlier = history.length;
  record(prompt);
  out({ type: "system", subtype: "init", cwd: process.cwd(), tools: ["Bash", "Write", "TodoWrite", "AskUserQuestion"], mcp_servers: [], model, permissionMode, apiKeySource: apiKey ? "ANTHROPIC_API_KEY" : "none", ...base() });

  if (scenario === "auth-missing" || prompt.includes("[[auth]]")) {
    if (claude) {
      out({ type: "assistant", message: { id: randomUUID(), model: "<synthetic>", role: "assistant", content: [{ type: "text", text: "Not logged in · Please run /login" }] }, error: "authentication_failed", parent_tool_use_id: null, ...base() });
      result("Not logged in · Please run /login", { is_error: true, terminal_reason: "api_error" });
    } else {
      out({ type: "assistant", message: { id: randomUUID(), model, role: "assistant", content: [{ type: "text", text: "Authentication required. Please use /login command to sign in to your account" }] }, parent_tool_use_id: null, ...base() });
      result("", { subtype: "error_during_execution", is_error: true, errors: ["Authentication required. Please use /login command to sign in to your account"] });
    }
    return;
  }
  if (prompt.includes("[[leak-mcp]]")) {
    // A provider that echoes its MCP servers' env and header values, on stderr and in its error text.
    const values = Object.values(mcpConfig.mcpServers ?? {}).flatMap((s) => [...Object.values(s.env ?? {}), ...Object.values(s.headers ?? {})]);
    process.stderr.write(`mcp servers failed: ${values.join(" ")}\n`);
    result("", { subtype: "error_during_execution", is_error: true, errors: [`mcp failed: ${values.join(" ")}`] });
    return;
  }
  if (prompt.includes("[[leak]]")) {
    // A provider that echoes the credential it was given, on stderr and in its error text.
    process.stderr.write(`invalid x-api-key: ${apiKey}\n`);
    if (claude) result(`Invalid API key ${apiKey} · Please run /login`, { is_error: true, terminal_reason: "api_error", api_error_status: 401 });
    else result("", { subtype: "error_during_execution", is_error: true, errors: [`401 invalid api key ${apiKey}`] });
    return;
  }
  if (prompt.includes("[[malformed]]")) process.stdout.write("this line is not json\n");
  // A JSON object that is no stream-json message: it has no `type`.
  if (prompt.includes("[[untyped]]")) process.stdout.write(`${JSON.stringify({ session_id: sessionId, note: "no type" })}\n`);
  if (prompt.includes("[[malformed-flood]]")) {
    // A flood of unreadable lines: 200 that are not JSON, one not UTF-8, one JSON but no message.
    for (let i = 0; i < 200; i++) process.stdout.write("{not json\n");
    process.stdout.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    process.stdout.write("42\n");
  }
  if (prompt.includes("[[exit-mid-turn]]")) {
    await streamText("partial answer");
    process.stderr.write("fatal: the fake CLI crashed mid-turn\n");
    process.exit(2);
  }
  if (prompt.includes("[[error]]")) {
    if (claude) {
      out({ type: "system", subtype: "api_retry", attempt: 1, max_retries: 1, retry_delay_ms: 1, error_status: 529, error: "overloaded", ...base() });
      await streamText("API Error: Repeated 529 Overloaded errors");
      result("API Error: Repeated 529 Overloaded errors", { is_error: true, terminal_reason: "api_error", api_error_status: 529 });
    } else {
      await streamText("500 fake internal error");
      result("", { subtype: "error_during_execution", is_error: true, errors: ["500 fake internal error"] });
    }
    return;
  }
  if (prompt.includes("[[stubborn]]")) return stubbornTurn();
  if (prompt.includes("[[linger]]")) {
    // Held until released: SIGTERM too is ignored, so only the release or SIGKILL ends it.
    lingering = true;
    process.on("SIGTERM", () => log({ event: "sigterm-while-lingering" }));
  }
  if (prompt.includes("[[think]]")) await streamText("Let me think about it.", { kind: "thinking" });
  if (prompt.includes("[[slow]]")) {
    const id = `msg_fake_${++msgCounter}`;
    if (partial) out({ type: "stream_event", event: { type: "message_start", message: { id, content: [] } }, parent_tool_use_id: null, ...base() });
    let sent = "";
    for (let i = 0; i < 400 && !interrupted; i++) {
      sent += "tick ";
      if (partial) out({ type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "tick " } }, parent_tool_use_id: null, ...base() });
      await sleep(25);
    }
    if (interrupted) {
      // [[unfinished]]: the interrupted block never gets its complete assistant message.
      const finished = !prompt.includes("[[unfinished]]");
      if (claude) {
        if (finished) out({ type: "assistant", message: { id, role: "assistant", model, content: [{ type: "text", text: sent }] }, aborted: true, parent_tool_use_id: null, ...base() });
        out({ type: "user", message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] }, parent_tool_use_id: null, ...base() });
        result("", { subtype: "error_during_execution", is_error: true, terminal_reason: "aborted_streaming", errors: ["[ede_diagnostic] aborted"] });
      } else {
        if (finished) out({ type: "assistant", message: { id, role: "assistant", model, content: [{ type: "text", text: sent }] }, parent_tool_use_id: null, ...base() });
        out({ type: "assistant", message: { id: randomUUID(), role: "assistant", model, content: [{ type: "text", text: "Interrupted by user" }] }, parent_tool_use_id: null, ...base() });
        result("");
      }
      return;
    }
    out({ type: "assistant", message: { id, role: "assistant", model, content: [{ type: "text", text: sent }] }, parent_tool_use_id: null, ...base() });
    result(sent);
    return;
  }
  if (prompt.includes("[[write]]") || prompt.includes("[[bash]]")) {
    const write = prompt.includes("[[write]]");
    const id = claude ? `toolu_fake_${++msgCounter}` : `call_fake_${++msgCounter}`;
    const input = write ? { file_path: join(process.cwd(), "fake.txt"), content: "written by the fake CLI\n" } : { command: "echo hi", description: "Say hi" };
    const decision = await guardedTool(id, write ? "Write" : "Bash", input);
    log({ event: "permission", tool: write ? "Write" : "Bash", ok: decision.ok, shape: decision.shape ?? null, early: decision.early ?? false });
    if (decision.ok) {
      const used = decision.input ?? input;
      if (write) writeFileSync(used.file_path, used.content);
      toolResult(id, write ? `File created successfully at: ${used.file_path}` : "hi");
      await streamText(write ? "Wrote the file." : "Said hi.");
      result(write ? "Wrote the file." : "Said hi.");
    } else {
      toolResult(id, decision.text, true);
      await streamText("The tool was denied.");
      result("The tool was denied.", { permission_denials: [{ tool_name: write ? "Write" : "Bash", tool_use_id: id, tool_input: input }] });
    }
    return;
  }
  if (prompt.includes("[[todo]]")) {
    const id = `toolu_todo_${++msgCounter}`;
    toolUse(id, "TodoWrite", { todos: [{ content: "Read the code", status: "completed", activeForm: "Reading" }, { content: "Fix the bug", status: "in_progress", activeForm: "Fixing" }, { content: "Run the tests", status: "pending", activeForm: "Testing" }] });
    toolResult(id, "Todos have been modified successfully");
    await streamText("Planned.");
    result("Planned.");
    return;
  }
  if (prompt.includes("[[mcp]]") || prompt.includes("[[task]]")) {
    const mcp = prompt.includes("[[mcp]]");
    const id = `toolu_${mcp ? "mcp" : "task"}_${++msgCounter}`;
    toolUse(id, mcp ? "mcp__docs__search" : "Task", mcp ? { query: "streams" } : { description: "Explore the repo", prompt: "look around", subagent_type: "Explore" });
    if (!mcp) {
      // The subagent's own messages carry the Task call as parent.
      out({ type: "assistant", message: { id: "msg_sub", role: "assistant", model, content: [{ type: "text", text: "subagent thinking aloud" }] }, parent_tool_use_id: id, ...base() });
      toolUse("toolu_nested", "Read", { file_path: "/etc/hostname" }, id);
    }
    toolResult(id, mcp ? "found 3 documents" : "The repo has two packages.");
    await streamText("Done.");
    result("Done.");
    return;
  }
  if (prompt.includes("[[ask]]")) {
    const id = `toolu_ask_${++msgCounter}`;
    const input = {
      questions: [
        { question: "Which database?", header: "Database", options: [{ label: "Postgres", description: "SQL" }, { label: "SQLite", description: "Embedded" }], multiSelect: false },
        { question: "Which features?", header: "Features", options: [{ label: "Auth", description: "" }, { label: "Search", description: "" }], multiSelect: true },
      ],
    };
    toolUse(id, "AskUserQuestion", input);
    const decision = allowed(await ask({ subtype: "can_use_tool", tool_name: "AskUserQuestion", input, tool_use_id: id }));
    const text = decision.ok ? `answers: ${JSON.stringify(decision.input?.answers ?? {})}` : "no answers";
    toolResult(id, text, !decision.ok);
    await streamText(text);
    result(text);
    return;
  }
  if (prompt.includes("[[blocks]]")) {
    const text = `blocks: ${blocks.map((b) => (b.type === "text" ? "text" : `${b.type}:${b.source?.media_type}:${Buffer.from(b.source?.data ?? "", "base64").length}`)).join(",")}`;
    await streamText(text);
    result(text);
    return;
  }
  if (prompt.includes("[[history]]")) {
    const text = `history: ${earlier} earlier prompts: ${history.slice(0, earlier).map((h) => h.prompt).join(" | ")}`;
    await streamText(text);
    result(text);
    return;
  }
  await streamText("Hello from the fake CLI.");
  result("Hello from the fake CLI.");
}

/** Streams until SIGKILL: the interrupt is answered but not honoured, SIGTERM and stdin end are ignored. */
async function stubbornTurn() {
  process.on("SIGTERM", () => log({ event: "sigterm-ignored" }));
  log({ event: "stubborn" });
  const id = `msg_fake_${++msgCounter}`;
  if (partial) out({ type: "stream_event", event: { type: "message_start", message: { id, content: [] } }, parent_tool_use_id: null, ...base() });
  for (;;) {
    out({ type: "stream_event", event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "more " } }, parent_tool_use_id: null, ...base() });
    await sleep(2);
  }
}

let lingering = false;
/** [[linger]]: exit once the release file exists (checked without holding the event loop open forever). */
async function exitWhenReleased() {
  const file = process.env.FAKE_CLI_RELEASE_FILE;
  log({ event: "lingering" });
  while (file && !existsSync(file)) await sleep(10);
  process.exit(0);
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() === "") continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      if (claude) {
        process.stderr.write(`Error parsing streaming input line (type=unknown): ${error}\n`);
        process.exit(1);
      }
      out({ type: "error", error: `Error parsing streaming input line: ${error}` });
      continue;
    }
    if (message.type === "user") log({ event: "user", content: message.message?.content });
    else log({ event: "stdin", type: message.type, subtype: message.request?.subtype ?? message.response?.subtype ?? null });
    if (message.type === "control_request") onControl(message);
    else if (message.type === "control_response") {
      const resolve = pending.get(message.response?.request_id);
      pending.delete(message.response?.request_id);
      resolve?.(message.response);
    } else if (message.type === "user") busy = busy.then(() => turn(message));
  }
});
process.stdin.on("end", () => {
  void busy.then(() => (lingering ? exitWhenReleased() : process.exit(0)));
});
