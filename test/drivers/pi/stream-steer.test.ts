/**
 * Steer and follow-up through the run's stream on a fake `pi --mode rpc`: `stream.steer()` and
 * `stream.followUp()` on `createAgent(pi(...)).stream()` reach Pi as its `steer` and `follow_up`
 * commands, and the same run goes on with them as the next user messages. The fake logs each model
 * call, so the test reads what the model received next.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { pi } from "../../../src/drivers/pi/index.js";
import type { AgentEvent } from "../../../src/events/types.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-pi.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "pi-stream-steer-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function modelCalls(log: string): { prompt: string; via?: string }[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { prompt: string; via?: string });
}

describe("pi driver on a fake pi --mode rpc: steer and follow-up from the stream", () => {
  it("stream.steer and stream.followUp sent during a tool become the run's next user messages", async () => {
    const log = join(root, "calls.jsonl");
    const driver = pi({ executable: process.execPath, args: [fixture], sessionDir: join(root, "sessions"), env: { FAKE_PI_LOG: log } });
    const agent = createAgent(driver, { workspace: root });
    try {
      const stream = agent.stream("HOLD while I think");
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "tool.started") {
          await expect(stream.steer("use the other approach")).resolves.toBe("native");
          await stream.followUp("now summarise");
        }
      }
      const result = await stream.result;
      expect(modelCalls(log)).toEqual([
        expect.objectContaining({ prompt: "HOLD while I think" }),
        expect.objectContaining({ prompt: "use the other approach", via: "steer" }),
        expect.objectContaining({ prompt: "now summarise", via: "follow_up" }),
      ]);
      expect(result.text).toBe("Followed: now summarise");
      // The steered answer streamed after the tool's result, in the same run, which then completed.
      const order = events.map((e) => e.type);
      expect(order.indexOf("tool.completed")).toBeLessThan(order.lastIndexOf("message.delta"));
      expect(order.at(-1)).toBe("run.completed");
      await expect(stream.followUp("too late")).rejects.toMatchObject({ code: "steer_rejected" });
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });
});
