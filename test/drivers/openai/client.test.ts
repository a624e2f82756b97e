/**
 * The `openai` package is loaded on first use: should it be missing (a pruned install) the driver
 * fails with `ExecutableNotFoundError` naming `npm install openai`, before anything is sent.
 */
import { describe, expect, it } from "vitest";

import { createAgent } from "../../../src/index.js";
import { loadOpenAI } from "../../../src/drivers/openai/client.js";
import { createOpenAIDriver } from "../../../src/drivers/openai/driver.js";

const missing = () => Promise.reject(Object.assign(new Error("Cannot find package 'openai'"), { code: "ERR_MODULE_NOT_FOUND" }));

describe("the openai package", () => {
  it("is loaded on demand; a missing package names npm install openai", async () => {
    await expect(loadOpenAI()).resolves.toBeTypeOf("function");
    await expect(loadOpenAI(missing)).rejects.toMatchObject({ code: "executable_not_found", install: "npm install openai", message: expect.stringContaining("npm install openai") });
  });

  it("missing, fails a run before delivery and shows in inspection", async () => {
    const agent = createAgent(createOpenAIDriver({ baseURL: "http://127.0.0.1:9/v1", model: "m" }, { importer: missing }), { workspace: process.cwd() });
    try {
      const inspection = await agent.inspect();
      expect(inspection.environment).toMatchObject({ status: "unavailable", reason: { code: "executable_not_found", message: expect.stringContaining("npm install openai") } });
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "executable_not_found", phase: "before_delivery" });
    } finally {
      await agent.close();
    }
  });
});
