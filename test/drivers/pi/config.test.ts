/**
 * The Pi driver's configuration and policy rules, checked before anything is launched: Pi has no
 * permission system and no sandbox, so a policy needing either is refused with a typed error
 * naming the reason; a bound key reaches Pi only by variable name.
 */
import { describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { pi } from "../../../src/drivers/pi/index.js";
import { boundModelsJson, BOUND_KEY_ENV, resolvePiConfig } from "../../../src/drivers/pi/config.js";
import { ConfigError } from "../../../src/errors/index.js";

const missing = "/nonexistent/pi-for-policy-tests";

describe("pi driver configuration", () => {
  it("declares no approvals, no user questions and native steer, resume and fork", () => {
    const d = pi({ executable: missing }).descriptor();
    expect(d.features).toEqual({ steer: "native", resume: "native", fork: "native", approvals: false, userQuestions: false, structuredOutput: false });
    expect(d.inputs.image.modes).toEqual(["native"]);
    expect(d.inputs.file.modes).toEqual([]);
  });

  it.each([
    [{ approval: "on-request" as const }, /approval "on-request".*no permission system/],
    [{ approval: "untrusted" as const }, /approval "untrusted"/],
    [{ approval: "on-failure" as const }, /approval "on-failure"/],
    [{ sandbox: "workspace-write" as const }, /sandbox "workspace-write".*no sandbox/],
    [{ sandbox: "read-only" as const }, /sandbox "read-only"/],
    [{ network: false }, /network false/],
  ])("refuses a policy Pi cannot honour (%o) before launch, naming the reason", async (policy, reason) => {
    expect(() => createAgent(pi({ executable: missing }), { defaults: { policy } })).toThrow(reason);
    const agent = createAgent(pi({ executable: missing }));
    try {
      // Refused before a spawn: a missing executable would otherwise be the error.
      await expect(agent.run("hello", { policy })).rejects.toMatchObject({ code: "config_invalid", message: expect.stringMatching(reason) });
    } finally {
      await agent.close();
    }
  });

  it("honours approval never, full access and the network", () => {
    expect(() => pi().validatePolicy({ approval: "never", sandbox: "full-access", network: true })).not.toThrow();
  });

  it("writes a bound key into models.json only as a variable name and reports it as a secret", () => {
    const key = "sk-bound-pi-4b1e7a90d2";
    const config = resolvePiConfig({ provider: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_PI_KEY", model: "m" }, env: { MY_PI_KEY: key } });
    const file = JSON.stringify(boundModelsJson(config.provider!, config.apiKey !== undefined));
    expect(file).not.toContain(key);
    expect(file).toContain(`"apiKey":"${BOUND_KEY_ENV}"`);
    expect(pi({ provider: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_PI_KEY", model: "m" }, env: { MY_PI_KEY: key } }).secrets()).toContain(key);
  });

  it("refuses an unset key variable, agentDir with provider, and unknown fields", () => {
    expect(() => pi({ provider: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "PI_TEST_UNSET_KEY_VAR", model: "m" } })).toThrow(ConfigError);
    expect(() => pi({ agentDir: "/tmp/x", provider: { baseUrl: "http://127.0.0.1:9/v1", model: "m" } })).toThrow(/agentDir and provider/);
    expect(() => pi({ bogus: 1 } as never)).toThrow(/bogus: unknown key/);
    expect(() => pi({ sessionDir: "relative" })).toThrow(/sessionDir: expected an absolute path/);
  });
});
