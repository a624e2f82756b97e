/**
 * Real-CLI lane of the Pi driver: `pi --mode rpc` (the pinned devDependency) against the scripted
 * model server's Chat Completions dialect, through a provider binding the driver writes into an
 * isolated models.json. No login, no paid call.
 *
 * Each test records the capability it proved (lane-record.ts); with PI_LANE_RECORD=1 the lane
 * writes them to lane-results.json, from which scripts/pi-capabilities.mjs renders the capability
 * table of docs/drivers/pi.md.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { pi, type PiConfig, type PiDriver } from "../../../src/drivers/pi/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { input } from "../../../src/input/index.js";
import { memoryThreadStore } from "../../../src/thread/stores/memory.js";
import { sqliteThreadStore } from "../../../src/thread/stores/sqlite.js";
import { lastUserText, type CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { capturedTexts, describeRealCli } from "../../real-cli/helpers.js";
import { laneEnv, PNG_1X1 } from "../real-lane.js";
import { PiLaneRecorder } from "./lane-record.js";

const lane = new PiLaneRecorder(["inspect", "prepare", "streaming", "usage", "tools", "cancel", "steer", "follow-up", "resume", "resume in a second OS process", "fork", "inputs", "model check"]);
afterAll(() => lane.writeIfRequested());

const execFileAsync = promisify(execFile);
const resumeChild = fileURLToPath(new URL("./fixtures/resume-in-child.mjs", import.meta.url));

/** The config of {@link driverFor}, as plain data a second host process can be given. */
function configFor(ctx: RealCliContext, extra: Partial<PiConfig> = {}): PiConfig {
  return {
    executable: ctx.executable,
    args: ctx.executable === process.execPath ? [ctx.entry] : [],
    env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
    provider: {
      baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`,
      apiKeyEnv: SCRIPTED_KEY_ENV,
      model: ctx.model,
      imageInput: true,
      cost: { input: 1, output: 2 },
    },
    ...extra,
  };
}

/** The lane's Pi, bound to the scripted server by the driver itself (not the lane's models.json). */
function driverFor(ctx: RealCliContext, extra: Partial<PiConfig> = {}): PiDriver {
  return pi(configFor(ctx, extra));
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "chat" && !r.auxiliary);

/** The session files under `dir` (none when Pi has not created it). */
async function sessionFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true })).map(String).filter((f) => f.endsWith(".jsonl"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

describeRealCli("pi", () => {
  it("inspects over get_state and get_available_models, streams a text turn with usage and cost, and leaves no process after close()", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } }] };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      const pids: number[] = [];
      try {
        const inspection = await agent.inspect();
        expect(inspection.models.status).toBe("observed");
        expect(inspection.models.value).toEqual([expect.objectContaining({ id: ctx.model, inputModalities: ["text", "image"], isDefault: true })]);
        expect(inspection.models.evidence[0]).toMatchObject({ method: "get_available_models" });
        expect(inspection.configuration).toMatchObject({ status: "observed", value: { model: ctx.model, modelProvider: "agent-adaptor" } });
        expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: true } });
        expect(inspection.commands.status).toBe("observed");
        expect(modelRequests(ctx)).toHaveLength(0);

        const stream = agent.stream("Say hello to the lane");
        const events = await collect(stream);
        const result = await stream.result;
        pids.push(...driver.processes().live);
        expect(result.text).toBe("Hello from the scripted model.");
        expect(events.filter((e) => e.type === "message.delta").length).toBeGreaterThan(1);
        expect(events.at(-1)?.type).toBe("run.completed");
        const usage = events.find((e) => e.type === "usage.observed");
        expect(usage).toMatchObject({ usage: { input_tokens: 10, output_tokens: 5 } });
        expect(usage?.type === "usage.observed" ? usage.usage.cost_usd : undefined).toBeCloseTo((10 * 1 + 5 * 2) / 1e6, 12);
        expect(result.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });

        const [request] = modelRequests(ctx) as [CapturedRequest];
        expect(request).toMatchObject({ path: "/v1/chat/completions", model: ctx.model, stream: true });
        expect(lastUserText(request)).toBe("Say hello to the lane");
        // The key travelled by variable: it is in no file Pi was given and on no command line.
        expect(request.headers.authorization).toBe("[REDACTED]");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
      expect(driver.processes().started).toBeGreaterThan(0);
      for (const pid of pids) expect(groupAlive(pid)).toBe(false);
      lane.proved(
        "inspect",
        "`get_state` (configuration: model, provider, thinking level), `get_available_models` (models with input modalities, context window, efforts; auth), `get_commands` (commands, and the skills panel from its `skill:<name>` entries); MCP (Pi has none: the agent's servers are connected by the driver's extension in a run's process only), quota and profile `unsupported`",
        "models, configuration, auth and commands `observed` with evidence naming the Pi method; the bound model listed with text and image input; no model request sent",
      );
      lane.proved(
        "streaming",
        "text (`text_delta`), thinking (`thinking_delta`), tools (`tool_execution_start/update/end`)",
        "a six-character-chunked reply arrived as several `message.delta` events, `run.completed` last, result text exact; the model got the prompt as the last user message, the key only as a redacted header",
      );
      lane.proved("usage", "per assistant message, with `cost_usd` when the model declares prices", "`usage.observed` 10 input / 5 output tokens with `cost_usd` from the declared prices; the same on the result");
    });
  });

  it("prepare() keeps a ready Pi that holds no session file, and the next run claims it instead of starting one", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "prepared question" }, reply: { text: "Prepared answer." } }] };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const sessionDir = join(ctx.root, "prepare-sessions");
      const driver = driverFor(ctx, { sessionDir });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const report = await agent.prepare();
        expect(report.process).toBe("ready");
        expect(report.inspection.models.status).toBe("observed");
        const [standbyPid] = driver.processes().live;
        expect(driver.processes()).toEqual({ live: [standbyPid], started: 1 });
        expect(await sessionFiles(sessionDir)).toEqual([]);
        expect(modelRequests(ctx)).toHaveLength(0);

        const stream = agent.stream("Answer the prepared question");
        const runPids = new Set<number>();
        for await (const event of stream) {
          if (event.type !== "run.completed") for (const pid of driver.processes().live) runPids.add(pid);
        }
        expect((await stream.result).text).toBe("Prepared answer.");
        expect([...runPids]).toEqual([standbyPid]);
        expect(driver.processes().started).toBe(1);
        expect(await sessionFiles(sessionDir)).toHaveLength(1);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
      lane.proved("prepare", "`ready`: a Pi process that answered `get_state` and holds no session (Pi writes a session file only once an assistant message exists)", "`prepare()` reported `ready` with one live Pi and no session file; the next run was served by that same process (one process started in all) and only then was a session file written");
    });
  });

  it("runs Pi's bash tool in the workspace and reports it as a completed command tool", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "write the proof" }, reply: { toolCalls: [{ id: "call_proof", name: "bash", arguments: { command: "printf 'proof from pi' > proof.txt && echo wrote-proof" } }] } },
        { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Please write the proof file");
        const events = await collect(stream);
        const result = await stream.result;
        expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe("proof from pi");
        expect(events.find((e) => e.type === "tool.started")).toMatchObject({ callId: "call_proof", kind: "command", name: "bash", command: expect.stringContaining("proof.txt") });
        const done = events.find((e) => e.type === "tool.completed");
        expect(done).toMatchObject({ callId: "call_proof", status: "completed" });
        expect(done?.type === "tool.completed" ? done.output : "").toContain("wrote-proof");
        expect(result.text).toBe("The proof file is written.");
      } finally {
        await agent.close();
      }
      lane.proved("tools", "`bash` → `command`, `edit`/`write` → `file_change` with a unified diff, `read` → `read`; `tool.updated.output` is a delta; see Tool events", "a scripted `bash` call ran in the workspace (its file is there): `tool.started` kind `command`, `tool.completed` `completed` with the command's output; the next answer followed the tool result");
    });
  });

  it("a cancel mid-turn ends the run cancelled, closes the open message and leaves no Pi process", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "long story" }, reply: { text: "word ".repeat(400), chunkSize: 5 }, fault: { dripMs: 40 } }] };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      const pids: number[] = [];
      try {
        const stream = agent.stream("Tell a long story");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "message.delta" && pids.length === 0) {
            pids.push(...driver.processes().live);
            stream.cancel("enough");
          }
        }
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
        expect(events.at(-1)?.type).toBe("run.cancelled");
        expect(events.some((e) => e.type === "message.completed")).toBe(true);
        expect(driver.processes().live).toEqual([]);
        expect(pids.length).toBe(1);
        for (const pid of pids) expect(groupAlive(pid)).toBe(false);
      } finally {
        await agent.close();
      }
      lane.proved("cancel", "native `abort`; open text and tools are closed (tools as `cancelled`) before `run.cancelled`; the process is retired", "cancel at the first delta of a dripped reply: `message.completed` then `run.cancelled` last, the result rejects `run_cancelled`, the Pi process group is gone");
    });
  });

  it("stream.steer() and stream.followUp() reach the model as the next user messages of the same run", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "start working" }, reply: { toolCalls: [{ id: "call_wait", name: "bash", arguments: { command: "sleep 1; echo waited" } }] } },
        { match: { lastUserTextContains: "STEERED" }, reply: { text: "Steered answer." } },
        { match: { lastUserTextContains: "FOLLOWED" }, reply: { text: "Follow-up answer." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Please start working");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "tool.started") {
            await expect(stream.steer("STEERED: use the other approach")).resolves.toBe("native");
            await stream.followUp("FOLLOWED: now summarise");
          }
        }
        const result = await stream.result;
        expect(result.text).toBe("Follow-up answer.");
        const requests = modelRequests(ctx);
        expect(requests.map((r) => lastUserText(r))).toEqual(["Please start working", "STEERED: use the other approach", "FOLLOWED: now summarise"]);
        // The steering message came after the tool's result, in the same conversation.
        expect(requests[1]!.messages.flatMap((m) => m.parts).some((p) => p.type === "tool_result" && p.callId === "call_wait")).toBe(true);
        await expect(stream.steer("too late")).rejects.toMatchObject({ code: "steer_rejected" });
        await expect(stream.followUp("too late")).rejects.toMatchObject({ code: "steer_rejected" });
      } finally {
        await agent.close();
      }
      lane.proved("steer", "native: `stream.steer(text)` resolves `\"native\"` (Pi's `steer`: after the current tool calls, before the next model call)", "`stream.steer()` while a `bash` tool ran: the next model request's last user message was the steering text, after that tool's result; a steer after the run ended rejects `steer_rejected`");
      lane.proved("follow-up", "native: `stream.followUp(text)` (Pi's `follow_up`: when the agent would otherwise stop; the same run goes on)", "`stream.followUp()` during the same tool: once the steered answer was done the run went on, the third model request's last user message was the follow-up, and the run's result was its answer; a follow-up after the run ended rejects `steer_rejected`");
    });
  });

  it("resumes a thread from Pi's session file in a new Pi process with the earlier turn reaching the model, and forks it", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "remember" }, reply: { text: "I will remember the word." } },
        { match: { lastUserTextContains: "which word" }, reply: { text: "The word was kiwi." } },
        { match: { lastUserTextContains: "forked question" }, reply: { text: "Forked answer." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const store = memoryThreadStore();
      const first = createAgent(driverFor(ctx), { workspace: ctx.workspace, threadStore: store });
      let threadId: string;
      let firstSession: string | undefined;
      try {
        const thread = await first.startThread();
        const r1 = await thread.run("Please remember the word kiwi");
        expect(r1.text).toBe("I will remember the word.");
        threadId = thread.id;
        firstSession = r1.providerSessionId;
      } finally {
        await first.close();
      }
      expect(firstSession).toMatch(/^[0-9a-f-]{36}$/);
      // A second driver (a new Pi process; the first one's temporary agent directory is gone)
      // resumes from the session directory.
      const driver = driverFor(ctx);
      const second = createAgent(driver, { workspace: ctx.workspace, threadStore: store });
      try {
        const resumed = await second.resumeThread(threadId!);
        const r2 = await resumed.run("Now, which word was it?");
        expect(r2.text).toBe("The word was kiwi.");
        expect(r2.providerSessionId).toBe(firstSession);
        const secondRequest = modelRequests(ctx)[1]!;
        expect(capturedTexts(secondRequest.messages, "user")).toEqual(["Please remember the word kiwi", "Now, which word was it?"]);
        expect(capturedTexts(secondRequest.messages, "assistant")).toEqual(["I will remember the word."]);

        const fork = await resumed.fork();
        const r3 = await fork.run("A forked question");
        expect(r3.text).toBe("Forked answer.");
        expect(r3.providerSessionId).toBeDefined();
        expect(r3.providerSessionId).not.toBe(firstSession);
        const forkRequest = modelRequests(ctx)[2]!;
        expect(capturedTexts(forkRequest.messages, "user")).toEqual(["Please remember the word kiwi", "Now, which word was it?", "A forked question"]);
      } finally {
        await second.close();
      }
      expect(driver.processes().live).toEqual([]);
      const sessions = await readdir(join(ctx.home, ".pi", "agent", "sessions"), { recursive: true });
      expect(sessions.filter((f) => String(f).endsWith(".jsonl"))).toHaveLength(2);
      lane.proved("resume", "native: `--session <id>` from the session directory, in a new Pi process", "a second driver (new Pi process, the first one's agent directory gone) resumed the session: same provider session id, and the model got the earlier user turn and answer before the new one");
      lane.proved("fork", "native: `--fork <id>` into a new session", "the fork ran under a new provider session id and the model got all earlier user turns plus the forked question; two session files remain");
    });
  });

  it("resumes a thread in a second host OS process through a shared SQLite store, with the earlier turn reaching the model", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "remember the colour" }, reply: { text: "I will remember teal." } },
        { match: { lastUserTextContains: "which colour" }, reply: { text: "The colour was teal." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const db = join(ctx.root, "threads.db");
      const config = configFor(ctx, { sessionDir: join(ctx.root, "shared-sessions") });
      const store = sqliteThreadStore(db);
      try {
        const first = createAgent(pi(config), { workspace: ctx.workspace, threadStore: store });
        let threadId: string;
        let sessionId: string | undefined;
        try {
          const thread = await first.startThread({ id: "tenant-1/colour" });
          threadId = thread.id;
          const r1 = await thread.run("Please remember the colour teal");
          expect(r1.text).toBe("I will remember teal.");
          sessionId = r1.providerSessionId;
        } finally {
          await first.close();
        }
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

        // The second turn runs in another Node process on the built package, sharing only the
        // SQLite file and Pi's session directory with this one.
        const spec = { db, threadId, workspace: ctx.workspace, config, prompt: "Now, which colour was it?" };
        const { stdout } = await execFileAsync(process.execPath, [resumeChild, JSON.stringify(spec)], { env: process.env, timeout: 120_000 });
        const child = JSON.parse(stdout.trim().split("\n").at(-1)!) as { hostPid: number; text: string; providerSessionId?: string; turns: number; piProcessesStarted: number };
        expect(child.hostPid).not.toBe(process.pid);
        expect(child).toMatchObject({ text: "The colour was teal.", providerSessionId: sessionId, turns: 2, piProcessesStarted: 1 });

        const [, resumedRequest] = modelRequests(ctx) as [CapturedRequest, CapturedRequest];
        expect(capturedTexts(resumedRequest.messages, "user")).toEqual(["Please remember the colour teal", "Now, which colour was it?"]);
        expect(capturedTexts(resumedRequest.messages, "assistant")).toEqual(["I will remember teal."]);
        // This process sees the turn the other one checkpointed into the shared store.
        expect(await store.get(threadId)).toMatchObject({ providerSessionId: sessionId, checkpoint: { turns: 2 } });
      } finally {
        await store.close();
      }
      lane.proved("resume in a second OS process", "a thread started in one host process resumes in another through a shared thread store (e.g. `sqliteThreadStore`) and Pi's session directory", "the first turn ran here, the second in a child `node` process on the built package with the same `pi()` config: same provider session id, the model got the earlier user turn and answer, and this process read 2 turns from the shared SQLite store");
    });
  });

  it("delivers an image input to the model byte-for-byte", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Describe the image" }, reply: { text: "A single pixel." } }] };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const file = join(ctx.root, "pixel.png");
      await writeFile(file, PNG_1X1);
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const result = await agent.run("Describe the image", { inputs: [input.fromPath("image", file, { mediaType: "image/png" })] });
        expect(result.text).toBe("A single pixel.");
        const parts = modelRequests(ctx)[0]!.messages.flatMap((m) => m.parts);
        const image = parts.find((p) => p.type === "image");
        expect(image).toMatchObject({ type: "image", mediaType: "image/png", byteLength: PNG_1X1.length, sha256: createHash("sha256").update(PNG_1X1).digest("hex") });
      } finally {
        await agent.close();
      }
      lane.proved("inputs", "images, natively, when the chosen model declares image input (else `input_mode_unsupported` before the prompt); files and audio unsupported", "a PNG reached the model as an `image/png` part of the same length and SHA-256 as the file");
    });
  });

  it("fails a model Pi does not offer, and an image for a model without image input, before the prompt", async () => {
    const script = { turns: [{ reply: { text: "never" } }] };
    await withRealCli("pi", script, async (ctx) => {
      lane.version(ctx.version);
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      const textOnly = driverFor(ctx);
      try {
        await expect(agent.run("hello", { model: "bogus-model" })).rejects.toMatchObject({ code: "config_value_unavailable", phase: "before_delivery" });
        const file = join(ctx.root, "pixel.png");
        await writeFile(file, PNG_1X1);
        const plain = createAgent(
          pi({
            executable: ctx.executable,
            args: ctx.executable === process.execPath ? [ctx.entry] : [],
            env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
            provider: { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model },
          }),
          { workspace: ctx.workspace },
        );
        try {
          await expect(plain.run("look", { inputs: [input.fromPath("image", file, { mediaType: "image/png" })] })).rejects.toMatchObject({ code: "input_mode_unsupported" });
        } finally {
          await plain.close();
        }
        expect(modelRequests(ctx)).toHaveLength(0);
      } finally {
        await agent.close();
        await textOnly.close();
      }
      lane.proved("model check", "a run's `model` must be one Pi lists (`id` or `provider/id`), else `config_value_unavailable` before the prompt; set with `set_model`", "`bogus-model` failed `config_value_unavailable` before delivery, an image for a text-only model failed `input_mode_unsupported`; the model server received no request");
    });
  });
});
