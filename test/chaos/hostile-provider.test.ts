/**
 * The hostile-provider matrix: every driver family (codex, stream-json, ACP) against a provider
 * that writes garbage, invalid UTF-8, a frame over the limit, a bulk of frames, a partial line and
 * exits, exits 1, closes stdout and stays, never answers initialize, floods stderr, or echoes its
 * key. Each case asserts the typed outcome, exactly one terminal event and nothing after it, no
 * process of the provider's group left once the agent closed, and no key in any event, error or
 * raw record.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent, type Driver } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { HOSTILE_CONDITIONS, writeHostileProvider, type HostileCondition } from "./hostile.js";
import { groupMembers } from "./processes.js";
import { fakeClaudeCli, scratch } from "../scenarios/helpers.js";
import { FULL, writeResults, type ResultRow } from "./support.js";

const CANARY = "sk-chaos-canary-7f3a9c1e5b2d4f60";
/** Silent initialize: the CI part cancels after this; the full run waits for the driver's own bound. */
const SILENT_CANCEL_MS = 1500;

const { dir } = scratch("aa-chaos-hostile-");
const fake = fakeClaudeCli();

interface Family {
  name: "codex" | "stream-json" | "acp";
  /** The line after which the condition starts: mid-turn, the model's answer under way. */
  trigger: string;
  /** Prompts: an ordinary one, and one that makes the fake echo its key in protocol fields too. */
  prompt: string;
  echoPrompt: string;
  keyEnv: string;
  /** The silent-initialize bound the driver enforces, in ms (the full run waits it out). */
  initializeBoundMs: number;
  driver(wrap: (command: string, args: string[], name: string) => string, condition: HostileCondition): Driver;
}

const FAMILIES: Family[] = [
  {
    name: "codex",
    trigger: '"turn/started"',
    prompt: "say hello",
    echoPrompt: "ECHO_KEY",
    keyEnv: "CHAOS_API_KEY",
    initializeBoundMs: 60_000,
    driver: (wrap) =>
      codex({
        executable: wrap(process.execPath, [fileURLToPath(new URL("../drivers/codex/fixtures/fake-codex.mjs", import.meta.url))], "codex"),
        home: dir(),
        env: { CHAOS_API_KEY: CANARY, FAKE_CODEX_ECHO_ENV: "CHAOS_API_KEY" },
      }),
  },
  {
    name: "stream-json",
    trigger: '"message_start"',
    prompt: "say hello",
    echoPrompt: "[[leak]]",
    keyEnv: "ANTHROPIC_API_KEY",
    initializeBoundMs: 120_000,
    driver: (wrap) => claude({ executable: wrap(fake.cli.executable, [], "claude"), configDir: fake.cli.configDir, env: { ANTHROPIC_API_KEY: CANARY } }),
  },
  {
    name: "acp",
    trigger: '"agent_message_chunk"',
    prompt: "say hello",
    echoPrompt: "ECHO_KEY",
    keyEnv: "CHAOS_API_KEY",
    initializeBoundMs: 5_000,
    driver: (wrap) =>
      acp({
        command: wrap(process.execPath, [fileURLToPath(new URL("../drivers/acp/fixtures/fake-agent.mjs", import.meta.url))], "fake-acp-agent"),
        env: { CHAOS_API_KEY: CANARY, FAKE_ACP_ECHO_ENV: "CHAOS_API_KEY" },
        initializeTimeoutMs: 5_000,
      }),
  },
];

/** Terminal type and code (`completed` for a completed run) each family reaches under each condition. */
const EXPECTED: Record<Family["name"], Record<HostileCondition, string>> = {
  codex: {
    garbage: "completed",
    invalid_utf8: "completed",
    huge_frame: "completed",
    bulk_frames: "completed",
    partial_line_exit: "provider_exited",
    exit_1: "provider_exited",
    closed_stdout: "provider_exited",
    silent_initialize: FULL ? "timeout" : "cancelled",
    stderr_flood: "completed",
    key_echo: "completed",
  },
  "stream-json": {
    garbage: "completed",
    invalid_utf8: "completed",
    huge_frame: "completed",
    bulk_frames: "completed",
    partial_line_exit: "provider_exited",
    exit_1: "provider_exited",
    closed_stdout: "provider_exited",
    silent_initialize: FULL ? "timeout" : "cancelled",
    stderr_flood: "completed",
    key_echo: "auth_required",
  },
  acp: {
    garbage: "completed",
    invalid_utf8: "completed",
    huge_frame: "completed",
    bulk_frames: "completed",
    partial_line_exit: "provider_exited",
    exit_1: "provider_exited",
    closed_stdout: "provider_exited",
    silent_initialize: "timeout",
    stderr_flood: "completed",
    key_echo: "completed",
  },
};

/**
 * The notice a condition that the run survives must leave, if any. The stream-json driver passes
 * a JSON object of unknown shape over silently (the CLIs add message types), so its bulk frames
 * (objects without a `type`) leave none.
 */
const NOTICE: Partial<Record<HostileCondition, string>> = {
  garbage: "invalid_json",
  invalid_utf8: "invalid_utf8",
  huge_frame: "frame_too_large",
  bulk_frames: "malformed_frame",
};

function outcomeOf(terminal: AgentEvent | undefined): string {
  if (terminal?.type === "run.completed") return "completed";
  if (terminal?.type === "run.cancelled") return "cancelled";
  if (terminal?.type === "run.failed") return terminal.error.code;
  return `no terminal (${terminal?.type ?? "no event"})`;
}

const rows: ResultRow[] = [];
afterAll(() => writeResults("hostile", rows));

describe.each(FAMILIES)("hostile provider: $name", (family) => {
  it.each(HOSTILE_CONDITIONS)(
    "%s: typed outcome, one terminal, no process left, no key anywhere",
    async (condition) => {
      const pidFile = join(dir(), "pid");
      const wrap = (command: string, args: string[], name: string) =>
        writeHostileProvider(dir(), name, { condition, command, args, trigger: family.trigger, keyEnv: family.keyEnv, pidFile });
      const driver = family.driver(wrap, condition);
      const agent = createAgent(driver, { workspace: family.name === "stream-json" ? fake.cli.workspace : dir() });
      const started = Date.now();
      const events: AgentEvent[] = [];
      let error: unknown;
      let raw = "";
      const waitsForBound = condition === "silent_initialize" && (FULL || family.name === "acp");
      const signal = condition === "silent_initialize" && !waitsForBound ? AbortSignal.timeout(SILENT_CANCEL_MS) : undefined;
      try {
        const stream = agent.stream(condition === "key_echo" ? family.echoPrompt : family.prompt, signal ? { signal } : {});
        for await (const event of stream) events.push(event);
        raw = JSON.stringify((await stream.result).raw());
      } catch (err) {
        error = err;
      } finally {
        await agent.close();
      }
      const elapsed = Date.now() - started;
      const terminals = events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled");
      const outcome = outcomeOf(events.at(-1));
      const pgid = Number(readFileSync(pidFile, "utf8"));
      const left = groupMembers([pgid]);
      const everything = JSON.stringify(events) + raw + String(error) + JSON.stringify(error) + ((error as Error | undefined)?.stack ?? "");
      rows.push({
        subject: `${family.name} × ${condition}`,
        count: 1,
        outcome: `${outcome}; ${terminals.length} terminal; ${events.length} events; ${left.length} processes left; key ${everything.includes(CANARY) ? "LEAKED" : "absent"}`,
        ms: elapsed,
      });

      expect(terminals).toHaveLength(1);
      expect(events.at(-1)).toBe(terminals[0]);
      expect(outcome).toBe(EXPECTED[family.name][condition]);
      const notice = family.name === "stream-json" && condition === "bulk_frames" ? undefined : NOTICE[condition];
      if (notice) expect(events.some((e) => e.type === "notice" && e.code === notice)).toBe(true);
      // A flood of unreadable lines costs a few coalesced notices, not one event per line.
      expect(events.length).toBeLessThan(200);
      expect(left).toEqual([]);
      expect(everything).not.toContain(CANARY);
    },
    FULL ? 240_000 : 60_000,
  );
});
