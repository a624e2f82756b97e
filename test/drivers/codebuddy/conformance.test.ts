/**
 * The driver conformance kit against the fake `codebuddy` executable (a Node script speaking Claude
 * Code's stream-json wire shapes): descriptor, inspection, one terminal, cancellation with
 * reaping, closed agent, prepare — on the plain fixture, on one whose initialize reports an empty
 * command list, and with a malformed stdout line in every turn. The fixtures a completed run
 * cannot pass (exit before init, exit mid-turn, missing login) are in driver.test.ts.
 */
import { afterAll, describe, it } from "vitest";
import { codebuddy } from "../../../src/drivers/codebuddy/index.js";
import type { StreamJsonDriver } from "../../../src/drivers/stream-json/driver.js";
import { runDriverConformance } from "../../../src/testing/conformance.js";
import { installFakeCli } from "../fake-cli/install.js";

const fake = await installFakeCli("codebuddy");
afterAll(() => fake.cleanup());

const fixtures = [
  { name: "plain fixture", scenario: "normal", prefix: "" },
  { name: "observed empty command list", scenario: "empty-commands", prefix: "" },
  { name: "malformed stdout line", scenario: "normal", prefix: "[[malformed]] " },
];

for (const fixture of fixtures) {
  describe(fixture.name, () => {
    runDriverConformance(
      () =>
        codebuddy({
          executable: fake.executable,
          configDir: fake.configDir,
          env: { FAKE_CLI_LOG: fake.logFile, FAKE_CLI_SCENARIO: fixture.scenario, CODEBUDDY_API_KEY: "sk-fake-conformance-key" },
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
