/**
 * Pi prints nothing at start-up and is ready only when it answers its first `get_state`: a Pi
 * that never answers fails within `initializeTimeoutMs` as a retryable `timeout` before delivery,
 * and its process is reclaimed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { pi } from "../../../src/drivers/pi/index.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-pi.mjs", import.meta.url));
const workspace = mkdtempSync(join(tmpdir(), "pi-startup-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe("pi driver start-up", () => {
  it("a Pi that never answers get_state fails within initializeTimeoutMs as a retryable timeout before delivery, leaving no process", async () => {
    const driver = pi({ executable: process.execPath, args: [fixture], env: { FAKE_PI_SILENT: "1" }, initializeTimeoutMs: 300 });
    const agent = createAgent(driver, { workspace });
    try {
      const inspection = await agent.inspect();
      expect(inspection.environment).toMatchObject({ status: "unavailable", reason: { code: "timeout" } });
      await expect(agent.run("hello")).rejects.toMatchObject({ code: "timeout", retryable: true, phase: "before_delivery" });
      expect(driver.processes().live).toEqual([]);
      expect(driver.processes().started).toBe(2);
    } finally {
      await agent.close();
    }
  });
});
