import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, input, type AgentEvent, type CallOptions } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const CANARY = "canary-content-7f3a";
let dir: string;
let imagePath: string;
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.from(`fake png ${CANARY}`)]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "aa-agent-inputs-"));
  imagePath = join(dir, "diagram.png");
  await writeFile(imagePath, PNG);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const imageCapable = { image: { modes: ["native" as const], mediaTypes: ["image/*"] }, file: { modes: [] }, audio: { modes: [] } };

describe("per-run inputs through the agent", () => {
  it("hands the driver a verified copy and removes it when the run ends", async () => {
    const driver = fakeDriver({ inputs: imageCapable });
    const agent = createAgent(driver);
    const stream = agent.stream("describe this", { inputs: [input.fromPath("image", imagePath, { mediaType: "image/png" })] });
    const events: AgentEvent[] = [];
    for await (const e of stream) events.push(e);
    await stream.result;
    const [delivered] = driver.probe.runs[0]!.inputs!;
    expect(delivered).toMatchObject({ kind: "image", mediaType: "image/png", deliveryMode: "native", size: PNG.length, name: "diagram.png" });
    expect(delivered!.sha256).toBe(createHash("sha256").update(PNG).digest("hex"));
    expect(delivered!.bytes.equals(PNG)).toBe(true);
    expect(delivered!.localPath).not.toBe(imagePath);
    expect(existsSync(delivered!.localPath)).toBe(false);
    const visible = JSON.stringify(events) + JSON.stringify((await stream.result).transcript());
    expect(visible).not.toContain(imagePath);
    expect(visible).not.toContain(CANARY);
    await agent.close();
  });

  it("rejects an unsupported kind before the driver is called, without the path", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    const error = await agent.run("x", { inputs: [input.fromPath("image", imagePath)] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "input_kind_unsupported", phase: "before_delivery" });
    expect(JSON.stringify(error) + String((error as Error).message) + String((error as Error).stack)).not.toContain(imagePath);
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it("enforces the agent's input limits", async () => {
    const driver = fakeDriver({ inputs: imageCapable });
    const agent = createAgent(driver, { inputLimits: { maxInputBytes: 8 } });
    await expect(agent.run("x", { inputs: [input.fromPath("image", imagePath, { mediaType: "image/png" })] })).rejects.toMatchObject({ code: "input_too_large" });
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it("inputs are call-only: not a default, and only input refs are accepted", () => {
    expect(() => createAgent(fakeDriver(), { defaults: { inputs: [] } } as never)).toThrow(expect.objectContaining({ code: "option_scope" }));
    const agent = createAgent(fakeDriver({ inputs: imageCapable }));
    expect(() => agent.stream("x", { inputs: [imagePath] } as unknown as CallOptions)).toThrow(expect.objectContaining({ code: "input_invalid" }));
    return agent.close();
  });

  it("a cancelled run removes its input copies", async () => {
    const driver = fakeDriver({
      inputs: imageCapable,
      script: { steps: [{ emit: { type: "notice", level: "info", code: "fake_notice", message: "working" } }, { waitForAbort: true }] },
    });
    const agent = createAgent(driver);
    const stream = agent.stream("x", { inputs: [input.fromPath("image", imagePath, { mediaType: "image/png" })] });
    let existedDuringRun = false;
    for await (const e of stream) {
      if (e.type === "notice") {
        existedDuringRun = existsSync(driver.probe.runs[0]!.inputs![0]!.localPath);
        break;
      }
    }
    expect(existedDuringRun).toBe(true);
    expect(existsSync(driver.probe.runs[0]!.inputs![0]!.localPath)).toBe(false);
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
  });
});
