/**
 * A provider's error text is never put into `partial.text` as if it were model output, and a
 * missing login names how to sign in (issue #11). Claude Code and CodeBuddy print API and login
 * errors as an assistant message before their error result; the fake CLI does the same.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { RunFailedError } from "../../src/errors/index.js";
import { installFakeCli, type FakeCli, type FakeDialect } from "./fake-cli/install.js";

const drivers: Record<FakeDialect, { make: (fake: FakeCli) => Driver; keyEnv: string }> = {
  claude: {
    make: (fake) => claude({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: "sk-fake-claude-key-0123456789" } }),
    keyEnv: "ANTHROPIC_API_KEY",
  },
  codebuddy: {
    make: (fake) => codebuddy({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, CODEBUDDY_API_KEY: "cb-fake-secret-key-98765" } }),
    keyEnv: "CODEBUDDY_API_KEY",
  },
};

for (const dialect of ["claude", "codebuddy"] as const) {
  describe(`${dialect}: provider error text`, () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli(dialect);
    });
    afterAll(() => fake.cleanup());

    it("an API error printed as an assistant message is not partial.text", async () => {
      const agent = createAgent(drivers[dialect].make(fake), { workspace: fake.workspace });
      try {
        const error = await agent.run("[[error]]").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RunFailedError);
        expect((error as RunFailedError).partial.text).toBe("");
      } finally {
        await agent.close();
      }
    });

    it("a missing login is not partial.text and names the login command or key variable", async () => {
      const agent = createAgent(drivers[dialect].make(fake), { workspace: fake.workspace });
      try {
        const error = await agent.run("[[auth]]").catch((e: unknown) => e);
        expect(error).toMatchObject({ code: "auth_required", partial: { text: "" } });
        expect((error as Error).message).toContain("/login");
        expect((error as Error).message).toContain(drivers[dialect].keyEnv);
      } finally {
        await agent.close();
      }
    });
  });
}
