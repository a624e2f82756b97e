/**
 * One rule for model and effort on Pi (issue #13 item 6): a bound provider's `model` is the
 * config's default model. Core folds it into the run (`RunRequest.model`, `run.started`), a call's
 * `model` overrides it, and the standby is keyed by it. Pi already starts on that model
 * (`--model`), so a run on the default sends no `set_model`. On a fake `pi --mode rpc` behind a
 * pipe that logs every command the driver sends.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import type { Driver, EventSink, RunRequest } from "../../../src/driver/types.js";
import { pi, type PiDriver } from "../../../src/drivers/pi/index.js";
import { findModel } from "../../../src/drivers/pi/prepare.js";

const fakePi = fileURLToPath(new URL("./fixtures/fake-pi.mjs", import.meta.url));
const commandLog = fileURLToPath(new URL("./fixtures/command-log.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "pi-defaults-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
let logs = 0;

interface Seen {
  runs: Pick<RunRequest, "model" | "effort">[];
  signatures: string[];
}

/** A fake Pi bound to a provider whose model is `model`; each driver logs to its own files. */
function boundPi(model: string): { driver: PiDriver; commands: string; prompts: string } {
  logs += 1;
  const commands = join(root, `commands-${logs}.jsonl`);
  const prompts = join(root, `prompts-${logs}.jsonl`);
  const driver = pi({
    executable: process.execPath,
    args: [commandLog, commands, fakePi],
    sessionDir: join(root, "sessions"),
    env: { FAKE_PI_LOG: prompts },
    provider: { baseUrl: "http://127.0.0.1:9/v1", model, models: ["fake-a", "fake-b"] },
  });
  return { driver, commands, prompts };
}

/** The driver as core sees it, recording the requests core hands it. */
function recording(driver: PiDriver, seen: Seen): Driver {
  return new Proxy(driver, {
    get(target, key) {
      if (key === "run") {
        return (request: RunRequest, sink: EventSink, signal: AbortSignal) => {
          seen.runs.push({ model: request.model, effort: request.effort });
          return target.run(request, sink, signal);
        };
      }
      if (key === "prepare") {
        return (...args: Parameters<Driver["prepare"]>) => {
          seen.signatures.push(args[0].signature);
          return target.prepare(...args);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const jsonLines = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);

const modelSwitches = (file: string) => jsonLines<{ type: string; modelId?: string }>(file).filter((c) => c.type === "set_model").map((c) => c.modelId);
const promptedModels = (file: string) => jsonLines<{ model: string }>(file).map((p) => p.model);

async function startedModel(agent: ReturnType<typeof createAgent>, prompt: string, options: { model?: string } = {}): Promise<string | undefined> {
  const stream = agent.stream(prompt, options);
  let model: string | undefined;
  for await (const event of stream) if (event.type === "run.started") model = event.model;
  await stream.result;
  return model;
}

describe("pi: the bound provider's model is the config's default", () => {
  it("reports it from defaults(); an unbound config gives none", () => {
    expect(boundPi("fake-b").driver.defaults?.()).toEqual({ model: "fake-b" });
    expect(pi({ executable: process.execPath, args: [fakePi] }).defaults?.()).toEqual({});
  });

  it("reaches RunRequest and run.started, and Pi, already on it, is sent no set_model", async () => {
    const { driver, commands, prompts } = boundPi("fake-b");
    const seen: Seen = { runs: [], signatures: [] };
    await using agent = createAgent(recording(driver, seen), { workspace });
    expect(await startedModel(agent, "hello")).toBe("fake-b");
    expect(seen.runs).toEqual([{ model: "fake-b", effort: undefined }]);
    expect(promptedModels(prompts)).toEqual(["fake-b"]);
    expect(modelSwitches(commands)).toEqual([]);
  });

  it("a call's model overrides it, and Pi is switched to that model", async () => {
    const { driver, commands, prompts } = boundPi("fake-b");
    const seen: Seen = { runs: [], signatures: [] };
    await using agent = createAgent(recording(driver, seen), { workspace });
    expect(await startedModel(agent, "hello", { model: "fake-a" })).toBe("fake-a");
    expect(seen.runs).toEqual([{ model: "fake-a", effort: undefined }]);
    expect(promptedModels(prompts)).toEqual(["fake-a"]);
    expect(modelSwitches(commands)).toEqual(["fake-a"]);
  });

  it("keys the standby: another default gives another signature, and a run on another model does not claim it", async () => {
    const signatureWith = async (model: string): Promise<string | undefined> => {
      const seen: Seen = { runs: [], signatures: [] };
      await using agent = createAgent(recording(boundPi(model).driver, seen), { workspace });
      await agent.prepare();
      return seen.signatures[0];
    };
    expect(await signatureWith("fake-a")).not.toBe(await signatureWith("fake-b"));

    const { driver, prompts } = boundPi("fake-b");
    await using agent = createAgent(driver, { workspace });
    await agent.prepare();
    expect(driver.processes().started).toBe(1);
    // Another model: a process of its own; the standby stays for a run on the default.
    await agent.run("first", { model: "fake-a" });
    expect(driver.processes().started).toBe(2);
    await agent.run("second");
    expect(driver.processes().started).toBe(2);
    expect(promptedModels(prompts)).toEqual(["fake-a", "fake-b"]);
  });
});

describe("pi: which listed model a run's model names", () => {
  const models = [
    { id: "shared", provider: "other" },
    { id: "shared", provider: "agent-adaptor" },
    { id: "only", provider: "other" },
  ];
  it("a bare id names the current provider's model when it lists one, else the first listed", () => {
    expect(findModel(models, "shared", { id: "shared", provider: "agent-adaptor" })).toBe(models[1]);
    expect(findModel(models, "shared", { id: "x", provider: "none" })).toBe(models[0]);
    expect(findModel(models, "shared")).toBe(models[0]);
    expect(findModel(models, "only", { id: "shared", provider: "agent-adaptor" })).toBe(models[2]);
  });

  it("provider/id names exactly that model; an unlisted one is none", () => {
    expect(findModel(models, "other/shared", { id: "shared", provider: "agent-adaptor" })).toBe(models[0]);
    expect(findModel(models, "agent-adaptor/only")).toBeUndefined();
  });
});
