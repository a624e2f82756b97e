/**
 * Replays frames recorded from the real CLIs (test/fixtures/frames/, re-recorded by
 * `node scripts/record-frames.mjs`) through each driver's mapper, in memory, with no process.
 * Each replay feeds the mapper what the driver's run loop feeds it and nothing else: the frames
 * the run loop handles itself (responses, approvals, control lines) only steer the replay the way
 * they steer the driver. Every emitted event is checked by the event validator on the way in.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import type { DriverEvent } from "../../src/events/types.js";
import type { Usage } from "../../src/events/usage.js";
import { DRIVER_TERMINAL_TYPES, assertDriverEvent } from "../../src/events/validate.js";
import { TurnMapper as CodexTurnMapper, type TurnOutcome } from "../../src/drivers/codex/events.js";
import { UpdateMapper, tokenUsage } from "../../src/drivers/acp/events.js";
import type { AcpPresetTraits } from "../../src/drivers/acp/config.js";
import { TurnMapper as StreamJsonTurnMapper } from "../../src/drivers/stream-json/turn.js";
import { usageOf } from "../../src/drivers/stream-json/usage.js";
import { claudeDialect } from "../../src/drivers/claude/dialect.js";
import { codebuddyDialect } from "../../src/drivers/codebuddy/dialect.js";
import { PiEventMapper } from "../../src/drivers/pi/events.js";

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const FIXTURES = new URL("../fixtures/frames/", import.meta.url);

/** The reply the `cancel` scenarios stream slowly (scripts/record-frames.mjs): what a cancelled turn said is a prefix of it. */
export const SLOW_REPLY = "This answer streams slowly, one small chunk at a time, so that the recorder can cancel the turn while the model is still talking. ".repeat(3);

/** The scenarios recorded for `target` (empty when the CLI could not be recorded). */
export function scenariosOf(target: string): string[] {
  const dir = new URL(`${target}/`, FIXTURES);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => f.slice(0, -".jsonl".length))
    .sort();
}

/** The frames of one recorded scenario, in the order the CLI sent them. */
export function framesOf(target: string, scenario: string): unknown[] {
  const text = readFileSync(new URL(`${target}/${scenario}.jsonl`, FIXTURES), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);
}

/** What a replay produced. */
export interface Replay {
  /** Every event the mapper emitted, each already validated. */
  readonly events: DriverEvent[];
  /** Per frame fed: the events it produced, and whether the mapper was still mapping (not done or closed) when it arrived. */
  readonly perFrame: { frame: unknown; events: DriverEvent[]; open: boolean }[];
}

class Collector {
  readonly events: DriverEvent[] = [];
  readonly perFrame: Replay["perFrame"] = [];
  constructor(readonly driverId: string) {}

  readonly emit = async (event: DriverEvent): Promise<void> => {
    assertDriverEvent(this.driverId, event);
    this.events.push(event);
  };

  /** Feeds one frame, recording the events it produced. */
  async feed(frame: unknown, open: boolean, handle: () => Promise<void> | void): Promise<void> {
    const before = this.events.length;
    await handle();
    this.perFrame.push({ frame, events: this.events.slice(before), open });
  }
}

/** Terminal events among `events` (a mapper leaves the terminal to its driver's run loop). */
export function terminals(events: readonly DriverEvent[]): DriverEvent[] {
  return events.filter((e) => DRIVER_TERMINAL_TYPES.has(e.type));
}

// --- codex app-server ---------------------------------------------------------------------------

export interface CodexReplay extends Replay {
  /** What `turn/completed` reported, when it arrived. */
  readonly outcome: TurnOutcome | undefined;
  readonly finalText: string;
  readonly usage: Usage | undefined;
}

/**
 * Codex: notifications go to the mapper; the thread id comes from the `thread/start` answer (as in
 * the driver); server requests (approvals) are answered by approvals.ts, not mapped here.
 */
export async function replayCodex(frames: readonly unknown[]): Promise<CodexReplay> {
  const sink = new Collector("codex");
  const mapper = new CodexTurnMapper(sink.emit);
  for (const frame of frames) {
    if (!isObject(frame) || typeof frame.method !== "string") continue;
    if (frame.response === true) {
      const thread = isObject(frame.result) && isObject(frame.result.thread) ? frame.result.thread : undefined;
      if (frame.method === "thread/start" && thread !== undefined) mapper.threadId = str(thread.id);
      continue;
    }
    if (frame.request === true) continue;
    const method = frame.method;
    await sink.feed(frame, !mapper.done, () => mapper.handle(method, frame.params));
  }
  const outcome = mapper.done ? await mapper.outcome : undefined;
  await mapper.closeOpenItems();
  return { events: sink.events, perFrame: sink.perFrame, outcome, finalText: mapper.finalText(outcome?.turn.items), usage: mapper.usage };
}

// --- ACP ----------------------------------------------------------------------------------------

export interface AcpReplay extends Replay {
  /** `stopReason` of the `session/prompt` answer, when it arrived. */
  readonly stopReason: string | undefined;
  readonly finalText: string;
  readonly usage: Usage | undefined;
}

/**
 * ACP: `session/update` params go to the mapper; a permission request announces its tool first
 * (the driver's permission desk calls `ensureTool`); the `session/prompt` answer ends the turn and
 * may carry usage (merged as the driver does for agents that report it there).
 */
export async function replayAcp(frames: readonly unknown[], traits: AcpPresetTraits): Promise<AcpReplay> {
  const sink = new Collector(traits.id);
  const mapper = new UpdateMapper(sink.emit, traits, "run_replay");
  let stopReason: string | undefined;
  let promptUsage: Usage | undefined;
  for (const frame of frames) {
    if (!isObject(frame) || typeof frame.method !== "string") continue;
    if (frame.response === true) {
      if (frame.method === "session/prompt" && isObject(frame.result)) {
        stopReason = str(frame.result.stopReason);
        promptUsage = tokenUsage(frame.result.usage);
      }
      continue;
    }
    const params = frame.params;
    if (frame.request === true) {
      if (frame.method === "session/request_permission" && isObject(params) && isObject(params.toolCall)) {
        const toolCall = params.toolCall;
        await sink.feed(frame, true, async () => void (await mapper.ensureTool(toolCall)));
      }
      continue;
    }
    if (frame.method === "session/update") await sink.feed(frame, true, () => mapper.handle(params));
  }
  await mapper.finish();
  if (mapper.usesSource("prompt_response")) mapper.mergeUsage(promptUsage);
  return { events: sink.events, perFrame: sink.perFrame, stopReason, finalText: mapper.finalText(), usage: mapper.usage };
}

// --- stream-json (Claude Code, CodeBuddy) -------------------------------------------------------

export interface StreamJsonReplay extends Replay {
  /** The turn's `result` line, when it arrived. */
  readonly result: Json | undefined;
  /** Usage as the driver reads it from the result line. */
  readonly usage: Usage | undefined;
  readonly sessionId: string | undefined;
  readonly lastText: string | undefined;
}

/**
 * stream-json: every stdout message but the control lines goes to the mapper. A `can_use_tool`
 * request starts its tool first where the dialect asks before showing the call (CodeBuddy), and
 * marks the call denied when the recording denied it (`deny`), as the driver's broker does.
 */
export async function replayStreamJson(frames: readonly unknown[], dialectId: "claude" | "codebuddy", options: { deny?: boolean } = {}): Promise<StreamJsonReplay> {
  const dialect = dialectId === "claude" ? claudeDialect : codebuddyDialect;
  const sink = new Collector(dialect.id);
  const mapper = new StreamJsonTurnMapper({ emit: sink.emit }, dialect.id, (t) => t);
  let open = true;
  for (const frame of frames) {
    if (!isObject(frame)) continue;
    if (frame.type === "control_request") {
      const request = isObject(frame.request) ? frame.request : undefined;
      const toolUseId = str(request?.tool_use_id);
      const toolName = str(request?.tool_name);
      if (request?.subtype !== "can_use_tool" || toolUseId === undefined || toolName === undefined) continue;
      await sink.feed(frame, open, async () => {
        if (dialect.permissionBeforeToolUse) await mapper.startToolFromPermission(toolUseId, toolName, isObject(request.input) ? request.input : {});
        if (options.deny === true) mapper.markDenied(toolUseId);
      });
      continue;
    }
    if (frame.type === "control_response" || frame.type === "control_cancel_request") continue;
    await sink.feed(frame, open, () => mapper.handle(frame));
    // The driver stops mapping at the first result line.
    if (frame.type === "result" && open) {
      open = false;
      await mapper.closeOpenItems();
    }
  }
  await mapper.closeOpenItems();
  const result = mapper.result as unknown as Json | undefined;
  const usage = mapper.result === undefined ? undefined : usageOf(mapper.result, dialect.costOf(mapper.result));
  return { events: sink.events, perFrame: sink.perFrame, result, usage, sessionId: mapper.sessionId, lastText: mapper.lastText };
}

// --- pi --mode rpc ------------------------------------------------------------------------------

export interface PiReplay extends Replay {
  /** Whether `agent_end` arrived (the driver's end of the turn). */
  readonly ended: boolean;
  readonly stopReason: string | undefined;
  readonly finalText: string;
  readonly usage: Usage | undefined;
}

/** Pi: every event (a frame that is not a command `response`) goes to the mapper; `agent_end` ends the turn. */
export async function replayPi(frames: readonly unknown[]): Promise<PiReplay> {
  const sink = new Collector("pi");
  const mapper = new PiEventMapper(sink.emit);
  let ended = false;
  for (const frame of frames) {
    if (!isObject(frame) || typeof frame.type !== "string" || frame.type === "response") continue;
    await sink.feed(frame, true, () => mapper.handle(frame));
    if (frame.type === "agent_end") ended = true;
  }
  await mapper.finish();
  return { events: sink.events, perFrame: sink.perFrame, ended, stopReason: str(mapper.lastAssistant?.stopReason), finalText: mapper.finalText, usage: mapper.usage };
}

// --- summaries ----------------------------------------------------------------------------------

/** Text per completed message (or reasoning) item, in completion order. */
export function completedTexts(events: readonly DriverEvent[], type: "message.completed" | "reasoning.completed"): string[] {
  return events.flatMap((e) => (e.type === type ? [e.text] : []));
}

/** The deltas of `type`, joined per item id. */
export function deltaTexts(events: readonly DriverEvent[], type: "message.delta" | "reasoning.delta"): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) if (e.type === type) out.set(e.itemId, (out.get(e.itemId) ?? "") + e.text);
  return out;
}

/** Every tool call as `{callId, kind, status}`: started kind, final status (undefined while open). */
export function tools(events: readonly DriverEvent[]): { callId: string; kind: string; status: string | undefined }[] {
  const calls = new Map<string, { callId: string; kind: string; status: string | undefined }>();
  for (const e of events) {
    if (e.type === "tool.started") calls.set(e.callId, { callId: e.callId, kind: e.kind, status: undefined });
    if (e.type === "tool.completed") {
      const call = calls.get(e.callId);
      if (call !== undefined) call.status = e.status;
    }
  }
  return [...calls.values()];
}

/** Notice codes in order. */
export function noticeCodes(events: readonly DriverEvent[]): string[] {
  return events.flatMap((e) => (e.type === "notice" ? [e.code] : []));
}

/** Every item that produced deltas is completed with exactly the text of its deltas. */
export function deltasMatchCompletions(events: readonly DriverEvent[]): boolean {
  for (const [delta, done] of [["message.delta", "message.completed"], ["reasoning.delta", "reasoning.completed"]] as const) {
    const streamed = deltaTexts(events, delta);
    for (const [itemId, text] of streamed) {
      const completions = events.filter((e): e is Extract<DriverEvent, { type: typeof done }> => e.type === done && e.itemId === itemId);
      if (completions.length !== 1 || completions[0]!.text !== text) return false;
    }
  }
  return true;
}
