/**
 * Steer and follow-up from the stream (issue #13 item 8 / #18 item 3): `RunStream.steer` and
 * `RunStream.followUp` reach the driver's `steer`/`followUp` for the run in flight, are refused
 * with `FeatureUnsupportedError` where the driver has no such channel, and with `steer_rejected`
 * once the run has ended — never emulated. The run is held in flight by a question the fake asks.
 */
import { describe, expect, it } from "vitest";
import { createAgent, FeatureUnsupportedError, type Driver, type RunStream } from "../../src/index.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";

const asksThenAnswers: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { ask: { requestId: "q1", questions: [{ id: "go", question: "go on?" }] } },
    { emit: { type: "message.delta", itemId: "m", text: "done" } },
  ],
  text: "done",
};

interface Delivered {
  kind: "steer" | "followUp";
  runId: string;
  text: string;
}

/** The fake driver with a native steer and a follow-up queue that record what reaches them. */
function steerableDriver(delivered: Delivered[], options: { followUp?: boolean } = {}): Driver {
  const inner = fakeDriver({ script: asksThenAnswers });
  const descriptor = inner.descriptor();
  const driver: Driver = {
    ...inner,
    descriptor: () => ({ ...descriptor, features: { ...descriptor.features, steer: "native" } }),
    async steer(runId, text, signal) {
      signal.throwIfAborted();
      delivered.push({ kind: "steer", runId, text });
    },
  };
  if (options.followUp !== false) {
    driver.followUp = async (runId, text, signal) => {
      signal.throwIfAborted();
      delivered.push({ kind: "followUp", runId, text });
    };
  }
  return driver;
}

/** Runs the stream, calling `during` while the run waits on its question. */
async function runWith(driver: Driver, during: (stream: RunStream) => Promise<void>): Promise<{ stream: RunStream; text: string }> {
  await using agent = createAgent(driver);
  let stream!: RunStream;
  const answered = new Promise<void>((resolve, reject) => {
    stream = agent.stream("hi", {
      onUserInput: async () => {
        try {
          await during(stream);
          resolve();
        } catch (error) {
          reject(error);
        }
        return { answers: { go: "yes" } };
      },
    });
  });
  for await (const _event of stream) {
    // drained so the run progresses
  }
  await answered;
  return { stream, text: (await stream.result).text };
}

describe("RunStream.steer and RunStream.followUp", () => {
  it("reach the driver for the run in flight, in order, and steer says it was native", async () => {
    const delivered: Delivered[] = [];
    const { stream, text } = await runWith(steerableDriver(delivered), async (s) => {
      await expect(s.steer("use the other approach")).resolves.toBe("native");
      await s.followUp("now summarise");
    });
    expect(text).toBe("done");
    expect(delivered).toEqual([
      { kind: "steer", runId: stream.runId, text: "use the other approach" },
      { kind: "followUp", runId: stream.runId, text: "now summarise" },
    ]);
  });

  it("reject with steer_rejected once the run has ended, without asking the driver", async () => {
    const delivered: Delivered[] = [];
    const { stream } = await runWith(steerableDriver(delivered), async () => undefined);
    await expect(stream.steer("too late")).rejects.toMatchObject({ code: "steer_rejected" });
    await expect(stream.followUp("too late")).rejects.toMatchObject({ code: "steer_rejected" });
    expect(delivered).toEqual([]);
  });

  it("reject with steer_rejected once the run is cancelled", async () => {
    const delivered: Delivered[] = [];
    await using agent = createAgent(steerableDriver(delivered));
    const stream = agent.stream("hi", { onUserInput: () => new Promise(() => undefined) });
    stream.cancel("stop");
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await expect(stream.steer("after cancel")).rejects.toMatchObject({ code: "steer_rejected" });
    expect(delivered).toEqual([]);
  });

  it("are FeatureUnsupportedError on a driver without native steer or a follow-up queue", async () => {
    let steerError: unknown;
    let followUpError: unknown;
    await runWith(fakeDriver({ script: asksThenAnswers }), async (s) => {
      steerError = await s.steer("x").catch((error: unknown) => error);
      followUpError = await s.followUp("y").catch((error: unknown) => error);
    });
    expect(steerError).toBeInstanceOf(FeatureUnsupportedError);
    expect(steerError).toMatchObject({ code: "feature_unsupported", feature: "steer" });
    expect(followUpError).toBeInstanceOf(FeatureUnsupportedError);
    expect(followUpError).toMatchObject({ code: "feature_unsupported", feature: "follow-up" });
  });

  it("follow-up support is derived from the driver's method: native steer alone is not enough", async () => {
    const delivered: Delivered[] = [];
    let followUpError: unknown;
    await runWith(steerableDriver(delivered, { followUp: false }), async (s) => {
      await s.steer("steer only");
      followUpError = await s.followUp("no queue").catch((error: unknown) => error);
    });
    expect(followUpError).toBeInstanceOf(FeatureUnsupportedError);
    expect(delivered.map((d) => d.kind)).toEqual(["steer"]);
  });
});
