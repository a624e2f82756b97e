/**
 * One rule for model and effort on ACP (issue #13 item 6): ACP drivers give no config defaults.
 * The only model an ACP config names is a preset's `provider.model`, which starts the agent on an
 * endpoint's model (an environment variable, flag or `-c` override) and is no value of the
 * session's `model` config option, the one a run's `model` selects. Folded into every run it would
 * fail runs that work today: an agent without a model option, or whose option does not list the
 * endpoint's model name (Copilot CLI, claude-agent-acp), would refuse it before the prompt. On the
 * fake ACP agent started through the `qwen()` preset.
 */
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { qwen } from "../../../src/drivers/acp/index.js";

const fakeAgent = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-defaults-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
const log = join(root, "agent.jsonl");
appendFileSync(log, "");

// The preset puts its own `--acp` first, so the fake agent is started through an executable file.
const executable = join(root, "fake-qwen.mjs");
writeFileSync(executable, `#!${process.execPath}\nawait import(${JSON.stringify(pathToFileURL(fakeAgent).href)});\n`);
chmodSync(executable, 0o755);

const driver = () => qwen({ executable, provider: { baseUrl: "http://127.0.0.1:9/v1", model: "endpoint-model" }, env: { FAKE_ACP_LOG: log } });
const promptedModels = () =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; model?: string })
    .filter((entry) => entry.event === "prompt")
    .map((entry) => entry.model);

describe("acp: a preset's provider.model is no default", () => {
  it("gives no defaults(); a run leaves the session on the agent's own model and names none", async () => {
    const acpDriver = driver();
    expect(acpDriver.defaults).toBeUndefined();
    await using agent = createAgent(acpDriver, { workspace });
    const stream = agent.stream("hello");
    let started: { model?: string } | undefined;
    for await (const event of stream) if (event.type === "run.started") started = event;
    await stream.result;
    expect(started).toBeDefined();
    expect(started!.model).toBeUndefined();
    expect(promptedModels().at(-1)).toBe("fake-a");
  });

  it("the endpoint's model name is no value of the session's model option: selected, it fails before the prompt", async () => {
    await using agent = createAgent(driver(), { workspace });
    const before = promptedModels().length;
    await expect(agent.run("hello", { model: "endpoint-model" })).rejects.toMatchObject({ code: "config_value_unavailable", phase: "before_delivery" });
    expect(promptedModels()).toHaveLength(before);
    // A value the option offers is applied as usual.
    await agent.run("hello", { model: "fake-c" });
    expect(promptedModels().at(-1)).toBe("fake-c");
  });
});
