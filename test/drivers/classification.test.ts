/**
 * Consistent classification on every driver family: a handshake unanswered within the driver's
 * `initializeTimeoutMs` is `timeout`, retryable, before delivery; a line of provider output that is not JSON is `invalid_json`, one
 * that is not UTF-8 `invalid_utf8`, JSON that is no protocol message `malformed_frame`; and a flood
 * costs one notice per code per interval whose `count`s add up to the lines written — not one
 * event per line.
 */
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { afterAll, describe, expect, it } from "vitest";

import { createAgent, RunFailedError, type AgentEvent, type Driver } from "../../src/index.js";
import { MALFORMED_FRAME_INTERVAL_MS, MalformedFrameNotices } from "../../src/driver/malformed-frames.js";
import type { DriverEvent } from "../../src/events/types.js";
import { acp, gemini } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import { writeFakeCodex } from "./codex/harness.js";
import { installFakeCli, type FakeCli } from "./fake-cli/install.js";
import { scratch } from "../scenarios/helpers.js";

const { dir } = scratch("aa-malformed-frames-");

/** What the fakes write: 200 lines that are not JSON, one that is not UTF-8, one JSON number. */
const WRITTEN = { invalid_json: 200, invalid_utf8: 1, malformed_frame: 1 };
const FRAME_CODES = new Set(Object.keys(WRITTEN));

type Notice = Extract<AgentEvent, { type: "notice" }>;

async function flood(driver: Driver, prompt: string): Promise<{ notices: Notice[]; elapsedMs: number }> {
  const agent = createAgent(driver, { workspace: dir() });
  const started = Date.now();
  try {
    const events: AgentEvent[] = [];
    const stream = agent.stream(prompt);
    for await (const event of stream) events.push(event);
    await stream.result;
    return { notices: events.filter((e): e is Notice => e.type === "notice" && FRAME_CODES.has(e.code)), elapsedMs: Date.now() - started };
  } finally {
    await agent.close();
  }
}

function expectCoalesced({ notices, elapsedMs }: { notices: Notice[]; elapsedMs: number }): void {
  const totals: Record<string, number> = {};
  for (const notice of notices) {
    expect(notice.level).toBe("warning");
    expect(notice.count).toBeGreaterThanOrEqual(1);
    totals[notice.code] = (totals[notice.code] ?? 0) + notice.count!;
  }
  expect(totals).toEqual(WRITTEN);
  // At most a first notice and one summary per code for every interval the run lasted.
  const intervals = Math.ceil(elapsedMs / MALFORMED_FRAME_INTERVAL_MS) + 1;
  expect(notices.length).toBeLessThanOrEqual(FRAME_CODES.size * 2 * intervals);
  expect(notices.length).toBeLessThan(202);
}

describe("malformed frames: one code per condition, coalesced, on every driver family", () => {
  it("codex", async () => {
    const driver = codex({ executable: writeFakeCodex(dir()), home: dir() });
    expectCoalesced(await flood(driver, "MALFORMED_FLOOD"));
  });

  it("acp", async () => {
    const agentScript = join(dir(), "fake-acp-agent");
    writeFileSync(agentScript, `#!${process.execPath}\nimport(${JSON.stringify(fileURLToPath(new URL("./acp/fixtures/fake-agent.mjs", import.meta.url)))});\n`);
    chmodSync(agentScript, 0o755);
    expectCoalesced(await flood(acp({ command: agentScript }), "MALFORMED_FLOOD"));
  });

  describe("stream-json", () => {
    let cli: FakeCli | undefined;
    afterAll(() => cli?.cleanup());
    it("claude", async () => {
      const fake = (cli = await installFakeCli("claude"));
      expectCoalesced(await flood(claude({ executable: fake.executable, configDir: fake.configDir, env: { ANTHROPIC_API_KEY: "sk-fake-flood-key-0123456789" } }), "[[malformed-flood]]"));
    });
  });
});

describe("MalformedFrameNotices", () => {
  it("reports the first line at once, then one notice per code per interval whose counts add up", async () => {
    let now = 0;
    const emitted: DriverEvent[] = [];
    const notices = new MalformedFrameNotices((e) => void emitted.push(e), "the provider", () => now);
    // 5 seconds of a flood: a bad line every 10 ms.
    for (; now < 5000; now += 10) await notices.report("invalid_json", "{not json");
    await notices.report("frame_too_large");
    await notices.flush();
    const counts = emitted.map((e) => (e.type === "notice" ? { code: e.code, count: e.count } : undefined));
    expect(counts[0]).toEqual({ code: "invalid_json", count: 1 });
    expect(counts.reduce((sum, c) => sum + (c?.code === "invalid_json" ? c.count! : 0), 0)).toBe(500);
    expect(counts.filter((c) => c?.code === "frame_too_large")).toEqual([{ code: "frame_too_large", count: 1 }]);
    expect(emitted.length).toBeLessThanOrEqual(7);
    // Quiet for an interval: the next line is reported at once again.
    now += MALFORMED_FRAME_INTERVAL_MS;
    emitted.length = 0;
    await notices.report("invalid_utf8");
    expect(emitted).toEqual([{ type: "notice", level: "warning", code: "invalid_utf8", message: "the provider wrote a line that is not valid UTF-8", count: 1 }]);
  });

  it("maps any other protocol error code to malformed_frame", async () => {
    const emitted: DriverEvent[] = [];
    await new MalformedFrameNotices((e) => void emitted.push(e), "x").report("protocol_error");
    expect(emitted[0]).toMatchObject({ code: "malformed_frame", count: 1 });
  });
});

/**
 * A provider that never answers its handshake. A shell records its pid beside it (before Node
 * even starts, so the test can check the process is gone) and execs an idle Node.
 */
function silentProvider(): { executable: string; pids: () => number[] } {
  const home = dir();
  const executable = join(home, "silent");
  writeFileSync(executable, `#!/bin/sh\necho > "${home}/pid-$$"\nexec ${JSON.stringify(process.execPath)} -e "setInterval(() => {}, 1000)"\n`);
  chmodSync(executable, 0o755);
  const pids = () => readdirSync(home).filter((f) => f.startsWith("pid-")).map((f) => Number(f.slice(4)));
  return { executable, pids };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const SILENT_FAMILIES: [string, (provider: ReturnType<typeof silentProvider>, initializeTimeoutMs: number) => Driver][] = [
  ["codex", (p, initializeTimeoutMs) => codex({ executable: p.executable, home: dir(), initializeTimeoutMs })],
  ["claude", (p, initializeTimeoutMs) => claude({ executable: p.executable, initializeTimeoutMs })],
  ["codebuddy", (p, initializeTimeoutMs) => codebuddy({ executable: p.executable, initializeTimeoutMs })],
  ["acp", (p, initializeTimeoutMs) => acp({ command: p.executable, initializeTimeoutMs })],
  ["acp preset", (p, initializeTimeoutMs) => gemini({ executable: p.executable, initializeTimeoutMs })],
  ["pi", (p, initializeTimeoutMs) => pi({ executable: p.executable, initializeTimeoutMs })],
];

describe("initializeTimeoutMs: a provider that does not answer its handshake in time fails with timeout, retryable, before delivery, on every driver", () => {
  it.each(SILENT_FAMILIES)("%s: the run fails with timeout naming initializeTimeoutMs, and no provider process is left", async (_name, make) => {
    const provider = silentProvider();
    const agent = createAgent(make(provider, 300), { workspace: dir() });
    try {
      const error = await agent.run("hello").catch((e: unknown) => e);
      // A provider failure, not a refusal: the run rejects with RunFailedError carrying the provider's classification.
      expect(error).toBeInstanceOf(RunFailedError);
      expect(error).toMatchObject({ code: "timeout", retryable: true, phase: "before_delivery" });
      expect((error as Error).message).toMatch(/did not answer \S+ within 300 ms \(initializeTimeoutMs\)/);
    } finally {
      await agent.close();
    }
    expect(provider.pids().length).toBeGreaterThan(0);
    expect(provider.pids().filter(isAlive)).toEqual([]);
  });

  it.each(SILENT_FAMILIES)("%s: inspect() reports every panel unavailable with reason timeout, and no provider process is left", async (_name, make) => {
    const provider = silentProvider();
    const agent = createAgent(make(provider, 300), { workspace: dir() });
    try {
      const inspection = await agent.inspect();
      const panels = Object.entries(inspection).filter(([, panel]) => typeof panel === "object" && panel !== null && "status" in panel);
      expect(panels.length).toBeGreaterThan(0);
      for (const [name, panel] of panels) expect({ name, ...panel }).toMatchObject({ name, status: "unavailable", reason: { code: "timeout" } });
    } finally {
      await agent.close();
    }
    expect(provider.pids().length).toBeGreaterThan(0);
    expect(provider.pids().filter(isAlive)).toEqual([]);
  });

  it.each(SILENT_FAMILIES)("%s: initializeTimeoutMs must be a non-negative integer; 0 (no limit) is accepted", (_name, make) => {
    const provider = silentProvider();
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => make(provider, bad)).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() => make(provider, 0)).not.toThrow();
  });
});
