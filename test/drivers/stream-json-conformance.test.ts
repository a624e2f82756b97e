/**
 * The driver conformance kit against the fake `claude` and `codebuddy` executables (a Node script
 * speaking each CLI's stream-json wire shapes): descriptor, inspection, one terminal,
 * cancellation with reaping, closed agent, prepare — on the plain fixture, on one whose
 * initialize reports an empty command list, and with a malformed stdout line in every turn. The
 * fixtures a completed run cannot pass (exit before init, exit mid-turn, missing login) are in
 * each driver's driver.test.ts.
 */
import { afterAll, describe, it } from "vitest";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import type { StreamJsonDriver } from "../../src/drivers/stream-json/driver.js";
import { runDriverConformance } from "../../src/testing/conformance.js";
import { installFakeCli } from "./fake-cli/install.js";

const dialects = [
  { name: "claude" as const, make: claude, keyEnv: "ANTHROPIC_API_KEY" },
  { name: "codebuddy" as const, make: codebuddy, keyEnv: "CODEBUDDY_API_KEY" },
];

const fixtures = [
  { name: "plain fixture", scenario: "normal", prefix: "" },
  { name: "observed empty command list", scenario: "empty-commands", prefix: "" },
  { name: "malformed stdout line", scenario: "normal", prefix: "[[malformed]] " },
];

for (const dialect of dialects) {
  const fake = await installFakeCli(dialect.name);
  afterAll(() => fake.cleanup());

  describe(dialect.name, () => {
    for (const fixture of fixtures) {
      describe(fixture.name, () => {
        runDriverConformance(
          () =>
            dialect.make({
              executable: fake.executable,
              configDir: fake.configDir,
              env: { FAKE_CLI_LOG: fake.logFile, FAKE_CLI_SCENARIO: fixture.scenario, [dialect.keyEnv]: "sk-fake-conformance-key" },
            }),
          {
            runner: { describe, it },
            agentOptions: { workspace: fake.workspace },
            textRun: { prompt: `${fixture.prefix}hello`, expectText: "Hello from the fake CLI." },
            cancellableRun: { prompt: `${fixture.prefix}please [[slow]]` },
            livePids: (driver) => (driver as StreamJsonDriver).livePids(),
            timeoutMs: 30_000,
          },
        );
      });
    }
  });
}
