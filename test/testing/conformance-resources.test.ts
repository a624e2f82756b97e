/**
 * The conformance kit's resource checks: a driver declaring nothing passes (every kind is refused
 * before it is called), a malformed or unstable declaration is flagged, and with the `resources`
 * fixture a driver that drops a declared kind on its way to the model is flagged.
 */
import { describe, it } from "vitest";
import type { Driver, ResourceSupport, RunRequest } from "../../src/index.js";
import { fakeDriver, runDriverConformance, type ConformanceFixtures, type FakeDriver, type FakeRunScript } from "../../src/testing/index.js";

const script = (prompt: string): FakeRunScript =>
  prompt === "hang"
    ? { steps: [{ markDelivered: true }, { waitForAbort: true }] }
    : { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m", text: `echo: ${prompt}` } }] };

const NONE: ResourceSupport = { instructions: false, hostTools: false, skills: false, mcp: { stdio: false, http: false } };
const DELIVERED: ResourceSupport = { instructions: true, hostTools: true, skills: true, mcp: { stdio: false, http: "advertised" } };

/** A process-backed fake declaring `resources` (each call of descriptor() may declare anew). */
function declaring(resources: () => unknown, onRun?: (request: RunRequest) => void): FakeDriver {
  const inner = fakeDriver({ script, process: true, prepare: "ready" });
  return {
    ...inner,
    descriptor: () => ({ ...inner.descriptor(), resources: resources() as ResourceSupport }),
    run: (request, sink, signal) => {
      onRun?.(request);
      return inner.run(request, sink, signal);
    },
  };
}

const livePids = (driver: Driver) => (driver as FakeDriver).probe.livePids();

/** What a provider passing the agent's resources to its model would have sent. */
function modelRecorder(drop?: "skills"): { onRun: (request: RunRequest) => void; received: () => string } {
  let last = "";
  return {
    onRun: (request) => {
      const { skills, ...rest } = request.resources;
      last = JSON.stringify(drop === "skills" ? rest : { ...rest, skills });
    },
    received: () => last,
  };
}

describe("a driver delivering no resource", () => {
  runDriverConformance(() => declaring(() => NONE), { runner: { describe, it }, textRun: { prompt: "hi", expectText: "echo: hi" }, cancellableRun: { prompt: "hang" }, livePids });
});

describe("a driver delivering instructions, host tools and skills to its model", () => {
  const model = modelRecorder();
  runDriverConformance(() => declaring(() => DELIVERED, model.onRun), {
    runner: { describe, it },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    livePids,
    resources: { received: model.received },
  });
});

/** Runs the kit with a collecting runner and reports which cases failed. */
async function failingCases(makeDriver: () => Driver, overrides: Partial<ConformanceFixtures> = {}, only?: string): Promise<string[]> {
  const cases: { name: string; body: () => Promise<void> }[] = [];
  runDriverConformance(makeDriver, {
    runner: { describe: (_name, body) => body(), it: (name, body) => cases.push({ name, body }) },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    ...overrides,
  });
  const failed: string[] = [];
  for (const c of cases) if (only === undefined || c.name === only) await c.body().catch(() => failed.push(c.name));
  return failed;
}

const REFUSAL_CHECK = "declares its resources and refuses each kind it does not deliver before calling the driver";
const DELIVERY_CHECK = "delivers each resource kind it declares: instructions, host tools and skills reach the model";

describe("the conformance kit catches broken resource declarations and deliveries", () => {
  it("flags a malformed declaration", async ({ expect }) => {
    expect(await failingCases(() => declaring(() => ({ ...NONE, mcp: { stdio: "yes", http: false } })))).toContain(REFUSAL_CHECK);
    expect(await failingCases(() => declaring(() => undefined))).toContain(REFUSAL_CHECK);
  });

  it("flags a declaration that is not the one createAgent reads", async ({ expect }) => {
    let instances = 0;
    // The first driver made (the one the check reads the declaration of) says "nothing", every later one "everything".
    const unstable = () => {
      const first = instances++ === 0;
      return declaring(() => (first ? NONE : { ...DELIVERED, mcp: { stdio: true, http: true } }));
    };
    expect(await failingCases(unstable, {}, REFUSAL_CHECK)).toEqual([REFUSAL_CHECK]);
  });

  it("flags a declared kind that never reaches the model", async ({ expect }) => {
    const dropping = modelRecorder("skills");
    const failed = await failingCases(() => declaring(() => DELIVERED, dropping.onRun), { resources: { received: dropping.received } });
    expect(failed).toContain(DELIVERY_CHECK);
    expect(failed).not.toContain(REFUSAL_CHECK);
    const faithful = modelRecorder();
    expect(await failingCases(() => declaring(() => DELIVERED, faithful.onRun), { resources: { received: faithful.received } })).toEqual([]);
  });
});
