/**
 * The ACP stop order (issue #14 item 5), against the fake ACP agent: a pending permission request
 * is answered `cancelled` before `session/cancel` reaches the agent. The escalation and the
 * finished turn's background retirement are tested with the other providers in
 * test/agent/stops-providers.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { acp, type AcpDriver } from "../../../src/drivers/acp/index.js";
import type { AgentEvent } from "../../../src/events/types.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-stops-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Fixture {
  driver: AcpDriver;
  workspace: string;
  /** What the agent read off its input, in arrival order (FAKE_ACP_WIRE_LOG). */
  wire(): string[];
}

let n = 0;
function readLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

function fake(): Fixture {
  const dir = join(root, `f${++n}`);
  const workspace = join(dir, "workspace");
  mkdirSync(workspace, { recursive: true });
  const wire = join(dir, "wire.jsonl");
  const driver = acp({ command: process.execPath, args: [fixture], env: { FAKE_ACP_WIRE_LOG: wire } });
  return {
    driver,
    workspace,
    wire: () => readLines<{ received: string }>(wire).map((entry) => entry.received),
  };
}

describe("acp: stops", () => {
  it("answers a pending permission request cancelled before session/cancel reaches the agent", async () => {
    const fixture = fake();
    const agent = createAgent(fixture.driver, { workspace: fixture.workspace });
    try {
      const stream = agent.stream("HANGING_APPROVAL", {
        onApproval: (_request, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny" }), { once: true })),
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "approval.requested") stream.cancel("stop");
      }
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expect(fixture.wire()).toEqual(["permission:cancelled", "session/cancel"]);
    } finally {
      await agent.close();
    }
  });
});
