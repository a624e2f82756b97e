/**
 * Inputs and pre-launch failures surface as themselves (issue #11): a run that could not start
 * rejects with its own error class, stamped with its run id and `phase: "before_delivery"`, and
 * still publishes `run.failed`; `RunFailedError` is for runs that got under way. Options are copied
 * when the call is made, `outputSchema` is refused by a driver that cannot honour it, and a
 * provider's error text never becomes `partial.text`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdaptorError,
  AuthRequiredError,
  ConfigError,
  createAgent,
  ExecutableNotFoundError,
  FeatureUnsupportedError,
  input,
  InputError,
  RunFailedError,
  ThreadBusyError,
  type AgentEvent,
  type Driver,
  type InputRef,
  type RunRequest,
} from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

let dir: string;
let notePath: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "aa-pre-launch-"));
  notePath = join(dir, "note.txt");
  await writeFile(notePath, "a note");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A fake driver whose `run()` first does `before(request)`. */
function driverThat(before: (request: RunRequest) => void | Promise<void>): Driver {
  const base = fakeDriver();
  return { ...base, run: async (request, sink, signal) => (await before(request), base.run(request, sink, signal)) };
}

describe("a run that could not start rejects with its own error", () => {
  it("an input the driver cannot take rejects as InputError with runId and phase", async () => {
    const agent = createAgent(fakeDriver());
    const stream = agent.stream("read this", { inputs: [input.fromPath("file", notePath, { mediaType: "text/plain" })] });
    const events = await drain(stream);
    const error = await stream.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect(AdaptorError.is(error)).toBe(true);
    expect(error).not.toBeInstanceOf(RunFailedError);
    expect(error).toMatchObject({ code: "input_kind_unsupported", runId: stream.runId, phase: "before_delivery" });
    expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "input_kind_unsupported", phase: "before_delivery" } });
    await agent.close();
  });

  const refusals: [string, () => AdaptorError, new (...args: never[]) => AdaptorError][] = [
    ["ConfigError", () => new ConfigError("the model is not configured"), ConfigError],
    ["ExecutableNotFoundError", () => new ExecutableNotFoundError("/opt/none/claude", undefined, { install: "npm install -g @anthropic-ai/claude-code" }), ExecutableNotFoundError],
    ["AuthRequiredError", () => new AuthRequiredError("not signed in", { remedy: "run `claude /login` or set ANTHROPIC_API_KEY" }), AuthRequiredError],
  ];
  for (const [name, make, type] of refusals) {
    it(`a driver's ${name} before delivery rejects run() as itself, after delivery as RunFailedError`, async () => {
      const driver = driverThat(() => {
        throw make();
      });
      const agent = createAgent(driver);
      const stream = agent.stream("hi");
      const events = await drain(stream);
      const error = await stream.result.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ code: make().code, runId: stream.runId, phase: "before_delivery" });
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: make().code, phase: "before_delivery" } });
      await expect(agent.run("again")).rejects.toBeInstanceOf(type);
      await agent.close();

      // The same error once the prompt may have been delivered ended a run under way.
      const late = createAgent(driverThat((request) => {
        request.markDelivered();
        throw make();
      }));
      const failed = await late.run("hi").catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(RunFailedError);
      expect(failed).toMatchObject({ code: make().code, phase: "after_delivery" });
      await late.close();
    });
  }

  it("a busy thread rejects as ThreadBusyError with runId and phase", async () => {
    const driver = fakeDriver({ script: (p) => (p === "hold" ? { steps: [{ waitForAbort: true }] } : { steps: [], text: "ok" }) });
    const agent = createAgent(driver);
    const thread = await agent.startThread();
    const holder = thread.stream("hold");
    const iterator = holder[Symbol.asyncIterator]();
    await iterator.next(); // run.started
    await iterator.next(); // thread.bound: the lease is held
    const second = thread.stream("second");
    const error = await second.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadBusyError);
    expect(error).toMatchObject({ code: "thread_busy", runId: second.runId, phase: "before_delivery" });
    holder.cancel();
    await holder.result.catch(() => undefined);
    await agent.close();
  });

  it("ExecutableNotFoundError names the path tried and how to install the provider", () => {
    const spawnFailure = new ExecutableNotFoundError("/opt/none/codex", "executable not found: codex");
    const explained = ExecutableNotFoundError.explain(spawnFailure, "npm install -g @openai/codex") as ExecutableNotFoundError;
    expect(explained).toBeInstanceOf(ExecutableNotFoundError);
    expect(explained.message).toContain("/opt/none/codex");
    expect(explained.message).toContain("npm install -g @openai/codex");
    expect(explained).toMatchObject({ executable: "/opt/none/codex", install: "npm install -g @openai/codex" });
    const other = new ConfigError("x");
    expect(ExecutableNotFoundError.explain(other, "npm install -g @openai/codex")).toBe(other);
  });
});

describe("outputSchema", () => {
  it("is refused before launch by a driver without structured output, and reaches one with it", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    const stream = agent.stream("answer as JSON", { outputSchema: { type: "object", properties: { ok: { type: "boolean" } } } });
    const events = await drain(stream);
    const error = await stream.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeatureUnsupportedError);
    expect(error).toMatchObject({ code: "feature_unsupported", runId: stream.runId, phase: "before_delivery" });
    expect(events.map((e) => e.type)).toEqual(["run.started", "run.failed"]);
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();

    // A driver that declares structured output receives it.
    const seen: unknown[] = [];
    const capable: Driver = {
      ...driver,
      descriptor: () => {
        const d = driver.descriptor();
        return { ...d, features: { ...d.features, structuredOutput: true } };
      },
      run: (request, sink, signal) => (seen.push(request.outputSchema), driver.run(request, sink, signal)),
    };
    const other = createAgent(capable);
    // The fake answers "ok", which is no JSON: the run fails with output_invalid, never ignored.
    await expect(other.run("answer as JSON", { outputSchema: { type: "object" } })).rejects.toMatchObject({ code: "output_invalid" });
    expect(seen).toEqual([{ type: "object" }]);
    await other.close();
  });
});

describe("call options are copied when the call is made", () => {
  it("pushing to the caller's inputs array or editing its metadata afterwards changes nothing", async () => {
    const capable = { image: { modes: [] }, file: { modes: ["native" as const], mediaTypes: ["text/*"] }, audio: { modes: [] } };
    const base = fakeDriver({ inputs: capable });
    const metadata: Record<string, string>[] = [];
    const driver: Driver = { ...base, run: (request, sink, signal) => (metadata.push({ ...request.metadata }), base.run(request, sink, signal)) };
    const agent = createAgent(driver);
    const inputs: InputRef[] = [input.fromPath("file", notePath, { mediaType: "text/plain" })];
    const meta: Record<string, string> = { ticket: "42" };
    const stream = agent.stream("read this", { inputs, metadata: meta });
    inputs.push(input.fromPath("file", notePath, { mediaType: "text/plain" }));
    meta.ticket = "changed";
    await drain(stream);
    await stream.result;
    expect(base.probe.runs[0]!.inputs).toHaveLength(1);
    expect(metadata).toEqual([{ ticket: "42" }]);
    await agent.close();
  });
});

describe("partial.text", () => {
  it("never holds the provider's error text as if it were model output, and keeps real output", async () => {
    const driver = fakeDriver({
      script: {
        steps: [
          { markDelivered: true },
          { emit: { type: "message.completed", itemId: "err", text: "API Error: Repeated 529 Overloaded errors" } },
          { fail: { code: "provider_overloaded", message: "API Error: Repeated 529 Overloaded errors", retryable: true } },
        ],
      },
    });
    const agent = createAgent(driver);
    const error = await agent.run("hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect((error as RunFailedError).partial.text).toBe("");
    await agent.close();

    // Model output that came before a failure stays.
    const answering = createAgent(fakeDriver({
      script: {
        steps: [
          { markDelivered: true },
          { emit: { type: "message.completed", itemId: "m1", text: "Here is the first half of the answer" } },
          { fail: { message: "the connection dropped" } },
        ],
      },
    }));
    const dropped = await answering.run("hi").catch((e: unknown) => e);
    expect((dropped as RunFailedError).partial.text).toBe("Here is the first half of the answer");
    await answering.close();
  });
});
