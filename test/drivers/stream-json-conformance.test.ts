/**
 * The driver conformance kit against the fake `claude` and `codebuddy` executables (a Node script
 * speaking each CLI's stream-json wire shapes): descriptor, inspection, one terminal,
 * cancellation with reaping, closed agent, prepare — on the plain fixture, on one whose
 * initialize reports an empty command list, and with a malformed stdout line in every turn. The
 * plain fixture also runs the failure fixtures (missing executable, missing login, an unknown
 * control request, a malformed initialize), run model parity, the side effects of
 * inspect/prepare, and a canary key the fake CLI echoes. The fixtures a completed run cannot
 * pass (exit before init, exit mid-turn) are in each driver's driver.test.ts.
 */
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import type { StreamJsonDriver } from "../../src/drivers/stream-json/driver.js";
import { runDriverConformance, type ConformanceFixtures } from "../../src/testing/conformance.js";
import { installFakeCli, type FakeCli } from "./fake-cli/install.js";

const dialects = [
  { name: "claude" as const, make: claude, keyEnv: "ANTHROPIC_API_KEY" },
  { name: "codebuddy" as const, make: codebuddy, keyEnv: "CODEBUDDY_API_KEY" },
];

const fixtures = [
  { name: "plain fixture", scenario: "normal", prefix: "", failures: true },
  { name: "observed empty command list", scenario: "empty-commands", prefix: "", failures: false },
  { name: "malformed stdout line", scenario: "normal", prefix: "[[malformed]] ", failures: false },
];

const CANARY_KEY = "sk-canary-4c1d9e7a2b6f0853";

/** The `--model` the process that answered the last user message was started with. */
async function modelOfLastTurn(fake: FakeCli): Promise<string | undefined> {
  const log = await fake.log();
  const pid = log.filter((e) => e.event === "user").at(-1)?.pid;
  const argv = log.find((e) => e.event === "spawn" && e.pid === pid)?.argv as string[] | undefined;
  const i = argv?.indexOf("--model") ?? -1;
  return i >= 0 ? argv![i + 1] : undefined;
}

for (const dialect of dialects) {
  const fake = await installFakeCli(dialect.name);
  afterAll(() => fake.cleanup());
  const driver = (scenario: string, overrides: { executable?: string; key?: string | undefined } = {}) =>
    dialect.make({
      executable: overrides.executable ?? fake.executable,
      configDir: fake.configDir,
      env: {
        FAKE_CLI_LOG: fake.logFile,
        FAKE_CLI_SCENARIO: scenario,
        ...("key" in overrides ? (overrides.key === undefined ? {} : { [dialect.keyEnv]: overrides.key }) : { [dialect.keyEnv]: "sk-fake-conformance-key" }),
      },
    });

  const failureFixtures: Partial<ConformanceFixtures> = {
    missingExecutable: () => driver("normal", { executable: join(fake.root, "bin", `no-such-${dialect.name}`) }),
    authRequired: { makeDriver: () => driver("auth-missing", { key: undefined }) },
    unsupportedMethod: { makeDriver: () => driver("unknown-mcp-status"), panel: "mcp" },
    malformedInspect: { makeDriver: () => driver("malformed-commands"), panel: "commands" },
    parity: { model: dialect.name === "claude" ? "fake-sonnet" : "fake-model", received: () => modelOfLastTurn(fake) },
    conversationDirs: [join(fake.configDir, "projects")],
    mcpServers: true,
    canary: { secret: CANARY_KEY, makeDriver: () => driver("normal", { key: CANARY_KEY }), prompts: ["[[leak]]"] },
  };

  describe(dialect.name, () => {
    for (const fixture of fixtures) {
      describe(fixture.name, () => {
        runDriverConformance(() => driver(fixture.scenario), {
          runner: { describe, it },
          agentOptions: { workspace: fake.workspace },
          textRun: { prompt: `${fixture.prefix}hello`, expectText: "Hello from the fake CLI." },
          cancellableRun: { prompt: `${fixture.prefix}please [[slow]]` },
          livePids: (d) => (d as StreamJsonDriver).livePids(),
          timeoutMs: 30_000,
          ...(fixture.failures ? failureFixtures : {}),
        });
      });
    }
  });
}
