/**
 * A missing provider executable rejects the run as an `ExecutableNotFoundError` that names the
 * path tried and how to install the provider, stamped with the run id and `before_delivery`
 * (issue #11); the inspection panel says the same.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { ExecutableNotFoundError } from "../../src/errors/index.js";

const root = mkdtempSync(join(tmpdir(), "aa-missing-exe-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cases: [string, (path: string) => Driver, string][] = [
  ["codex", (path) => codex({ executable: path }), "npm install -g @openai/codex"],
  ["claude", (path) => claude({ executable: path }), "npm install -g @anthropic-ai/claude-code"],
  ["codebuddy", (path) => codebuddy({ executable: path }), "npm install -g @tencent-ai/codebuddy-code"],
];

describe("a missing provider executable", () => {
  for (const [name, make, install] of cases) {
    it(`${name}: rejects the run as ExecutableNotFoundError naming the path tried and the install command`, async () => {
      const path = join(root, `no-such-${name}`);
      const agent = createAgent(make(path), { workspace: root });
      try {
        const stream = agent.stream("hello");
        const error = await stream.result.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ExecutableNotFoundError);
        expect(error).toMatchObject({ code: "executable_not_found", executable: path, install, runId: stream.runId, phase: "before_delivery" });
        expect((error as Error).message).toContain(path);
        expect((error as Error).message).toContain(install);
        const inspection = await agent.inspect();
        expect(inspection.environment.reason?.code).toBe("executable_not_found");
        expect(inspection.environment.reason?.message).toContain(install);
      } finally {
        await agent.close();
      }
    });
  }
});
