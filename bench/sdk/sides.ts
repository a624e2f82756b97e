/**
 * The seven consumers the SDK benchmark compares, each behind one small interface so the harness
 * treats them alike. A side starts its provider (one of the fakes), runs one turn, and calls
 * `onDelta` once per text delta that reaches it; `onDelta` may ask it to `break` out of its loop,
 * or return a promise (a slow consumer) that the side awaits before reading on.
 *
 * Claude stream-json: a raw reader, `@anthropic-ai/claude-agent-sdk` `query()`, `claude()`.
 * Codex: a raw reader of app-server JSON-RPC and one of `exec --experimental-json` JSONL,
 * `@openai/codex-sdk` (which runs exec), `codex()` (which runs app-server).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

import { query } from "@anthropic-ai/claude-agent-sdk";
import { Codex } from "@openai/codex-sdk";

import { createAgent } from "../../src/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { FakeInstall } from "./fakes.js";

/** Returned by `onDelta` to leave the loop (`break`). */
export const BREAK = 1;
export type Step = undefined | typeof BREAK | Promise<void>;

export type ProviderMode = "cooperative" | "stubborn";

export interface RunSpec {
  /** Text deltas the provider emits. */
  n: number;
  mode: ProviderMode;
  pidFile: string;
  /** Aborting it stops the run through the side's own cancel path. */
  signal: AbortSignal;
  onDelta(): Step;
}

export interface Session {
  /** Runs the turn; resolves when the consumer's loop has ended (normally, by break or abort). */
  consume(): Promise<void>;
  /** Releases what the side holds (the agent); called after the measurement. */
  close(): Promise<void>;
}

export type Protocol = "claude" | "codex";
export type Wire = "stream-json" | "app-server" | "exec";

export interface Side {
  id: string;
  label: string;
  protocol: Protocol;
  wire: Wire;
  kind: "raw" | "sdk" | "library";
  open(fakes: FakeInstall, spec: RunSpec): Session;
}

const fakeEnv = (spec: RunSpec): Record<string, string> => ({
  SDKBENCH_N: String(spec.n),
  SDKBENCH_MODE: spec.mode,
  SDKBENCH_PID_FILE: spec.pidFile,
});

const hostEnv = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

// ---------------------------------------------------------------------------------------------
// Raw readers: spawn, split lines, JSON.parse, nothing else.

/** How long a raw reader lets a stopped provider exit on its own before SIGKILL. */
export const RAW_STOP_GRACE_MS = 1_000;

type Frame = Record<string, unknown> & { type?: unknown; method?: unknown; event?: { type?: unknown } };
/** What a raw reader does with one parsed frame. */
type FrameStep = Step | "end";

interface RawProtocol {
  args: string[];
  /** Written at start (handshake + prompt); the stdin stays open unless `closeStdin`. */
  opening(): string;
  closeStdin: boolean;
  isDelta(frame: Frame): boolean;
  isTurnEnd(frame: Frame): boolean;
  /** The protocol's interrupt line, when it has one. */
  interrupt(): string | undefined;
}

const CLAUDE_RAW: RawProtocol = {
  args: ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "--include-partial-messages"],
  opening: () =>
    `${JSON.stringify({ type: "control_request", request_id: "init_1", request: { subtype: "initialize", hooks: null } })}\n` +
    `${JSON.stringify({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "bench" }] }, parent_tool_use_id: null })}\n`,
  closeStdin: false,
  isDelta: (frame) => frame.type === "stream_event" && frame.event?.type === "content_block_delta",
  isTurnEnd: (frame) => frame.type === "result",
  interrupt: () => `${JSON.stringify({ type: "control_request", request_id: "interrupt_1", request: { subtype: "interrupt" } })}\n`,
};

const APP_SERVER_RAW: RawProtocol = {
  args: ["app-server"],
  opening: () =>
    [
      { id: 0, method: "initialize", params: { clientInfo: { name: "bench", title: null, version: "0" }, capabilities: null } },
      { method: "initialized" },
      { id: 1, method: "thread/start", params: {} },
      { id: 2, method: "turn/start", params: { threadId: "", input: [{ type: "text", text: "bench", text_elements: [] }] } },
    ]
      .map((message) => `${JSON.stringify(message)}\n`)
      .join(""),
  closeStdin: false,
  isDelta: (frame) => frame.method === "item/agentMessage/delta",
  isTurnEnd: (frame) => frame.method === "turn/completed",
  // The fake's turn ids are known: turn_1 is the first turn of the process.
  interrupt: () => `${JSON.stringify({ id: 3, method: "turn/interrupt", params: { threadId: "", turnId: "turn_1" } })}\n`,
};

const EXEC_RAW: RawProtocol = {
  args: ["exec", "--experimental-json", "--skip-git-repo-check"],
  opening: () => "bench",
  closeStdin: true,
  isDelta: (frame) => frame.type === "item.updated",
  isTurnEnd: (frame) => frame.type === "turn.completed" || frame.type === "turn.failed",
  interrupt: () => undefined, // exec has none: SIGTERM, as the SDK's abort does
};

function rawSide(id: string, label: string, protocol: Protocol, wire: Wire, raw: RawProtocol, executable: (f: FakeInstall) => string): Side {
  return {
    id,
    label,
    protocol,
    wire,
    kind: "raw",
    open(fakes, spec) {
      let child: ChildProcessWithoutNullStreams | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      const stop = (): void => {
        if (child === undefined || killTimer !== undefined) return;
        const line = raw.interrupt();
        if (line !== undefined && child.stdin.writable) child.stdin.write(line);
        else child.kill("SIGTERM");
        if (child.stdin.writable) child.stdin.end();
        const target = child;
        killTimer = setTimeout(() => target.kill("SIGKILL"), RAW_STOP_GRACE_MS);
        killTimer.unref();
      };
      return {
        async consume() {
          child = spawn(executable(fakes), raw.args, { cwd: fakes.workspace, env: { ...hostEnv(), ...fakeEnv(spec) }, stdio: ["pipe", "pipe", "pipe"] });
          child.stderr.resume();
          child.stdin.on("error", () => {});
          child.stdin.write(raw.opening());
          if (raw.closeStdin) child.stdin.end();
          spec.signal.addEventListener("abort", stop, { once: true });
          child.stdout.setEncoding("utf8");
          let rest = "";
          reading: for await (const chunk of child.stdout as AsyncIterable<string>) {
            const text = rest.length === 0 ? chunk : rest + chunk;
            let start = 0;
            for (let nl = text.indexOf("\n"); nl >= 0; start = nl + 1, nl = text.indexOf("\n", start)) {
              const frame = JSON.parse(text.slice(start, nl)) as Frame;
              let step: FrameStep;
              if (raw.isDelta(frame)) step = spec.onDelta();
              else if (raw.isTurnEnd(frame)) step = "end";
              if (step === undefined) continue;
              if (step === BREAK) {
                stop();
                break reading;
              }
              if (step === "end") {
                if (child.stdin.writable) child.stdin.end();
                if (spec.signal.aborted) break reading; // stopped: the turn's end is the loop's end
                continue;
              }
              await step;
            }
            rest = text.slice(start);
          }
        },
        async close() {
          spec.signal.removeEventListener("abort", stop);
          if (child !== undefined && child.exitCode === null && child.signalCode === null) {
            stop();
            await new Promise((resolve) => child!.once("exit", resolve));
          }
          clearTimeout(killTimer);
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Official SDKs.

const claudeSdkSide: Side = {
  id: "claude-sdk",
  label: "claude-agent-sdk query()",
  protocol: "claude",
  wire: "stream-json",
  kind: "sdk",
  open(fakes, spec) {
    const abortController = new AbortController();
    spec.signal.addEventListener("abort", () => abortController.abort(), { once: true });
    return {
      async consume() {
        const messages = query({
          prompt: "bench",
          options: {
            pathToClaudeCodeExecutable: fakes.claude,
            cwd: fakes.workspace,
            env: { ...hostEnv(), ...fakeEnv(spec), CLAUDE_CONFIG_DIR: fakes.claudeConfigDir },
            includePartialMessages: true,
            settingSources: [],
            persistSession: false,
            abortController,
          },
        });
        try {
          for await (const message of messages) {
            if (message.type !== "stream_event" || message.event.type !== "content_block_delta") continue;
            const step = spec.onDelta();
            if (step === undefined) continue;
            if (step === BREAK) break;
            await step;
          }
        } catch (error) {
          if (!spec.signal.aborted) throw error;
        }
      },
      async close() {
        abortController.abort();
      },
    };
  },
};

const codexSdkSide: Side = {
  id: "codex-sdk",
  label: "codex-sdk runStreamed() (exec)",
  protocol: "codex",
  wire: "exec",
  kind: "sdk",
  open(fakes, spec) {
    return {
      async consume() {
        const client = new Codex({ codexPathOverride: fakes.codex, env: { ...hostEnv(), ...fakeEnv(spec), CODEX_HOME: fakes.codexHome } });
        const thread = client.startThread({ workingDirectory: fakes.workspace, skipGitRepoCheck: true });
        try {
          const { events } = await thread.runStreamed("bench", { signal: spec.signal });
          for await (const event of events) {
            if (event.type !== "item.updated") continue;
            const step = spec.onDelta();
            if (step === undefined) continue;
            if (step === BREAK) break;
            await step;
          }
        } catch (error) {
          if (!spec.signal.aborted) throw error;
        }
      },
      async close() {},
    };
  },
};

// ---------------------------------------------------------------------------------------------
// This library, public API only.

function librarySide(id: string, label: string, protocol: Protocol, wire: Wire, driverFor: (fakes: FakeInstall, spec: RunSpec) => ReturnType<typeof claude> | ReturnType<typeof codex>): Side {
  return {
    id,
    label,
    protocol,
    wire,
    kind: "library",
    open(fakes, spec) {
      const agent = createAgent(driverFor(fakes, spec), { workspace: fakes.workspace });
      return {
        async consume() {
          try {
            for await (const event of agent.stream("bench", { signal: spec.signal })) {
              if (event.type !== "message.delta") continue;
              const step = spec.onDelta();
              if (step === undefined) continue;
              if (step === BREAK) break;
              await step;
            }
          } catch (error) {
            if (!spec.signal.aborted) throw error;
          }
        },
        close: () => agent.close(),
      };
    },
  };
}

export const SIDES: readonly Side[] = [
  rawSide("claude-raw", "raw reader (stream-json)", "claude", "stream-json", CLAUDE_RAW, (f) => f.claude),
  claudeSdkSide,
  librarySide("claude-lib", "claude() createAgent().stream()", "claude", "stream-json", (fakes, spec) =>
    claude({ executable: fakes.claude, configDir: fakes.claudeConfigDir, env: { ...fakeEnv(spec), ANTHROPIC_API_KEY: "sk-bench-not-a-real-key" } }),
  ),
  rawSide("codex-raw-app-server", "raw reader (app-server JSON-RPC)", "codex", "app-server", APP_SERVER_RAW, (f) => f.codex),
  rawSide("codex-raw-exec", "raw reader (exec JSONL)", "codex", "exec", EXEC_RAW, (f) => f.codex),
  codexSdkSide,
  librarySide("codex-lib", "codex() createAgent().stream()", "codex", "app-server", (fakes, spec) =>
    codex({ executable: fakes.codex, home: fakes.codexHome, env: fakeEnv(spec) }),
  ),
];
