/**
 * Edges of the stream-json family (Claude Code and CodeBuddy) against the fake CLI: a JSON object
 * without `type` is reported as a `malformed_frame` notice like on the other drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { collect, ofType } from "./helpers.js";
import { installFakeCli, type FakeCli, type FakeDialect } from "./fake-cli/install.js";

const dialects: { name: FakeDialect; make: typeof claude | typeof codebuddy; keyEnv: string }[] = [
  { name: "claude", make: claude, keyEnv: "ANTHROPIC_API_KEY" },
  { name: "codebuddy", make: codebuddy, keyEnv: "CODEBUDDY_API_KEY" },
];

for (const dialect of dialects) {
  describe(`${dialect.name}: edges`, () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli(dialect.name);
    });
    afterAll(() => fake.cleanup());
    const driverFor = (scenario = "normal") =>
      dialect.make({
        executable: fake.executable,
        configDir: fake.configDir,
        env: { FAKE_CLI_LOG: fake.logFile, FAKE_CLI_SCENARIO: scenario, [dialect.keyEnv]: "sk-fake-edges-key-0123456789" },
      });

    it("reports a JSON object without type as one malformed_frame notice and finishes the turn", async () => {
      const agent = createAgent(driverFor(), { workspace: fake.workspace });
      try {
        const events = await collect(agent.stream("[[untyped]] hello"));
        expect(ofType(events, "notice")).toMatchObject([{ level: "warning", code: "malformed_frame", count: 1 }]);
        expect(events.filter((e) => e.type === "run.failed")).toEqual([]);
        expect(events.at(-1)!.type).toBe("run.completed");
      } finally {
        await agent.close();
      }
    });
  });
}
