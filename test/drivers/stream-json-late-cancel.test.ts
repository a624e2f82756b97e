/**
 * Issue #11 on the stream-json drivers (Claude Code, CodeBuddy) against the fake CLI: a `result`
 * read before a cancel is the run's outcome (item 1), and an interrupted turn closes every item it
 * started before the terminal, also a block the CLI never finished (item 7).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { TurnMapper } from "../../src/drivers/stream-json/turn.js";
import type { AgentEvent, DriverEvent } from "../../src/events/types.js";
import { installFakeCli } from "./fake-cli/install.js";
import { expectCompletedDespiteLateCancel, expectEveryItemClosed, LATE_CANCELS, streamWithLateCancel } from "./late-cancel.js";

const dialects = [
  { name: "claude" as const, make: claude, keyEnv: "ANTHROPIC_API_KEY" },
  { name: "codebuddy" as const, make: codebuddy, keyEnv: "CODEBUDDY_API_KEY" },
];

for (const dialect of dialects) {
  const fake = await installFakeCli(dialect.name);
  afterAll(() => fake.cleanup());
  const driver = () => dialect.make({ executable: fake.executable, configDir: fake.configDir, env: { [dialect.keyEnv]: "sk-fake-late-cancel-key" } });

  describe(`${dialect.name}: a late cancel never rewrites a finished turn`, () => {
    for (const kind of LATE_CANCELS) {
      it(`a result read before ${kind} keeps the run completed`, async () => {
        const made = driver();
        let close!: () => Promise<void>;
        const outcome = await streamWithLateCancel(made, (wrapped) => {
          const agent = createAgent(wrapped, { workspace: fake.workspace });
          close = () => agent.close();
          return agent;
        }, "hello", kind);
        await expectCompletedDespiteLateCancel(outcome, kind, "Hello from the fake CLI.");
        await close();
        expect(made.livePids()).toEqual([]);
      });
    }
  });

  it(`${dialect.name}: a block the interrupted CLI never finishes gets message.completed with its text so far`, async () => {
    const agent = createAgent(driver(), { workspace: fake.workspace });
    try {
      const stream = agent.stream("[[slow]] [[unfinished]]");
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "message.delta" && events.filter((e) => e.type === "message.delta").length === 3) stream.cancel("stop");
      }
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expectEveryItemClosed(events);
      const streamed = events.filter((e) => e.type === "message.delta" && e.itemId === (events.find((d) => d.type === "message.delta") as { itemId: string }).itemId);
      const closing = events.find((e) => e.type === "message.completed" && e.itemId === (streamed[0] as { itemId: string }).itemId);
      expect(closing).toMatchObject({ text: streamed.map((e) => (e as { text: string }).text).join("") });
    } finally {
      await agent.close();
    }
  });
}

describe("stream-json turn mapper: interrupted items are closed", () => {
  it("closes streamed text and thinking with their text so far, and started tools as cancelled", async () => {
    const events: DriverEvent[] = [];
    const mapper = new TurnMapper({ emit: (event) => void events.push(event) }, "claude", (text) => text);
    const stream = (event: Record<string, unknown>) => mapper.handle({ type: "stream_event", event, parent_tool_use_id: null });
    await stream({ type: "message_start", message: { id: "msg_1" } });
    await stream({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hm" } });
    await stream({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hel" } });
    await stream({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "lo" } });
    await mapper.handle({ type: "assistant", message: { id: "msg_2", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "sleep 9" } }] }, parent_tool_use_id: null });
    await mapper.closeOpenItems();
    const closing = events.filter((e) => e.type.endsWith(".completed"));
    expect(closing).toEqual([
      expect.objectContaining({ type: "reasoning.completed", itemId: "msg_1:1", text: "hm" }),
      expect.objectContaining({ type: "message.completed", itemId: "msg_1:2", text: "Hello" }),
      expect.objectContaining({ type: "tool.completed", callId: "toolu_1", status: "cancelled" }),
    ]);
    // What the CLI says after the turn ended for the run is not mapped.
    await stream({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "late" } });
    expect(events.filter((e) => e.type === "message.delta")).toHaveLength(2);
  });
});
