import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import {
  allUnavailable,
  AuthRequiredError,
  ExecutableNotFoundError,
  observed,
  unavailable,
  unsupported,
  type Driver,
  type Evidence,
  type InspectRequest,
  type InspectResponse,
  type RunRequest,
} from "../../src/index.js";
import { fakeDriver, runDriverConformance, type ConformanceFixtures, type FakeDriver, type FakeRunScript } from "../../src/testing/index.js";

const script = (prompt: string): FakeRunScript =>
  prompt === "hang"
    ? { steps: [{ markDelivered: true }, { waitForAbort: true }] }
    : { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m", text: `echo: ${prompt}` } }] };

const livePids = (driver: Driver) => (driver as FakeDriver).probe.livePids();

describe("fake driver, in-process", () => {
  runDriverConformance(() => fakeDriver({ script }), {
    runner: { describe, it },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    livePids,
  });
});

describe("fake driver, real child process with a standby", () => {
  runDriverConformance(() => fakeDriver({ script, process: true, prepare: "ready" }), {
    runner: { describe, it },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    livePids,
  });
});

// ---------------------------------------------------------------------------------------------
// A fake provider with the behaviours the optional checks need, each of which can be broken.

const root = mkdtempSync(join(tmpdir(), "conformance-kit-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const SECRET = "canary-7f3a9c2e5d41b8";
const fakeEvidence: Evidence[] = [{ transport: "fake", method: "fake/read", scope: "process", observedAt: new Date().toISOString(), durationMs: 0 }];

interface Behaviour {
  inspect?: Partial<InspectResponse>;
  /** Panels prepare() reports differently from inspect(). */
  prepareInspect?: Partial<InspectResponse>;
  /** Side effects of inspect() (a broken provider) and of a run (every provider). */
  onInspect?: (request: InspectRequest) => void;
  onRun?: (request: RunRequest) => void;
  /** What a run throws before anything is delivered. */
  refuse?: () => Error;
  /** What a run reports when it fails. */
  fail?: (prompt: string) => Error | undefined;
}

function provider(behaviour: Behaviour = {}): Driver {
  const base = fakeDriver({ script, ...(behaviour.inspect ? { inspect: behaviour.inspect } : {}) });
  return {
    ...base,
    inspect: async (request, signal) => {
      behaviour.onInspect?.(request);
      return base.inspect(request, signal);
    },
    prepare: async (request, signal) => {
      behaviour.onInspect?.(request);
      const report = await base.prepare(request, signal);
      return behaviour.prepareInspect ? { ...report, inspection: { ...report.inspection, ...behaviour.prepareInspect } } : report;
    },
    run: async (request, sink, signal) => {
      if (behaviour.refuse) throw behaviour.refuse();
      behaviour.onRun?.(request);
      const failure = behaviour.fail?.(request.prompt);
      if (failure) {
        request.markDelivered();
        throw failure;
      }
      return base.run(request, sink, signal);
    },
  };
}

/** Starts every stdio MCP server the agent declares, as a provider does when a session opens. */
const startMcpServers = (request: { resources: { mcp: RunRequest["resources"]["mcp"] } }) => {
  for (const server of request.resources.mcp) if ("command" in server) execFileSync(server.command, server.args ?? []);
};

/** Records each run's conversation in `dir`, as a provider does. */
const recordConversation = (dir: string) => (request: RunRequest) => writeFileSync(join(dir, `${request.runId}.jsonl`), request.prompt);

/** The fixtures of a well-behaved provider; `broken` replaces any of them. */
function fixtures(broken: Partial<ConformanceFixtures> = {}): Omit<ConformanceFixtures, "runner"> {
  const conversations = join(root, `conversations-${++dirs}`);
  execFileSync("mkdir", ["-p", conversations]);
  let lastModel: string | undefined;
  return {
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    missingExecutable: () =>
      provider({
        inspect: allUnavailable("executable_not_found", "executable not found: /nowhere/fake-cli"),
        refuse: () => new ExecutableNotFoundError("/nowhere/fake-cli"),
      }),
    authRequired: { makeDriver: () => provider({ refuse: () => new AuthRequiredError("the fake provider is not signed in") }) },
    unsupportedMethod: { makeDriver: () => provider({ inspect: { quota: unsupported("quota/read is not a method of this provider") } }), panel: "quota" },
    malformedInspect: { makeDriver: () => provider({ inspect: { models: unavailable("malformed_response", "models/list answered without a list") } }), panel: "models" },
    parity: { model: "fake-large", received: () => lastModel },
    conversationDirs: [conversations],
    mcpServers: true,
    canary: {
      secret: SECRET,
      makeDriver: () =>
        provider({
          inspect: { secrets: [SECRET], configuration: observed({ model: `key ${SECRET}` }, fakeEvidence) },
          fail: (prompt) => (prompt === "leak" ? new Error("the provider refused the key") : undefined),
        }),
      prompts: ["leak"],
    },
    ...broken,
  } satisfies Omit<ConformanceFixtures, "runner"> & { makeDriverFor?: never };
}

/** The well-behaved provider as `makeDriver`: runs record a conversation, start MCP servers and note their model. */
function wellBehaved(f: Omit<ConformanceFixtures, "runner">, extra: Behaviour = {}): () => Driver {
  const record = recordConversation(f.conversationDirs![0]!);
  return () =>
    provider({
      onRun: (request) => {
        record(request);
        startMcpServers(request);
        modelSeen.set(f, request.model);
      },
      ...extra,
    });
}
const modelSeen = new WeakMap<object, string | undefined>();

describe("fake provider with every optional fixture", () => {
  const f = fixtures();
  f.parity = { model: "fake-large", received: () => modelSeen.get(f) };
  runDriverConformance(wellBehaved(f), { runner: { describe, it }, ...f });
});

/** Runs the kit with a collecting runner and reports which cases failed. */
async function failingCases(makeDriver: () => Driver, overrides: Partial<ConformanceFixtures> = {}): Promise<string[]> {
  return [...(await failures(makeDriver, overrides)).keys()];
}

/** Runs the kit with a collecting runner: each failed case's name and its failure's message. */
async function failures(makeDriver: () => Driver, overrides: Partial<ConformanceFixtures> = {}): Promise<Map<string, string>> {
  const cases: { name: string; body: () => Promise<void> }[] = [];
  runDriverConformance(makeDriver, {
    runner: { describe: (_name, body) => body(), it: (name, body) => cases.push({ name, body }) },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    ...overrides,
  });
  const failed = new Map<string, string>();
  for (const c of cases) await c.body().catch((error: unknown) => failed.set(c.name, error instanceof Error ? error.message : String(error)));
  return failed;
}

describe("the conformance kit catches broken drivers", () => {
  it("flags an observed panel without evidence", async ({ expect }) => {
    const failed = await failingCases(() => fakeDriver({ script, inspect: { commands: { status: "observed", value: [], evidence: [] } } }));
    expect(failed).toContain("inspects every panel truthfully and returns detached snapshots");
  });

  it("flags a driver whose text run does not complete", async ({ expect }) => {
    const failed = await failingCases(() => fakeDriver({ script: () => ({ steps: [{ fail: { message: "nope" } }] }) }));
    expect(failed).toContain("streams one ordered timeline with exactly one terminal event, last");
  });

  it("flags a driver that leaves a process behind", async ({ expect }) => {
    const failed = await failingCases(() => fakeDriver({ script }), { livePids: () => [process.pid] });
    expect(failed).toContain("rejects every verb after close() without calling the driver, and reclaims processes");
  });

  it("flags a prepare() whose inspection differs from inspect()", async ({ expect }) => {
    const failed = await failingCases(() => provider({ prepareInspect: { quota: unavailable("provider_error", "only prepare says so") } }));
    expect(failed).toContain("prepare() observes what inspect() observes on the same configuration");
  });

  it("flags a missing executable that inspect() hides or a run reports as a generic failure", async ({ expect }) => {
    const hidden = await failingCases(() => provider(), { missingExecutable: () => provider({ refuse: () => new ExecutableNotFoundError("/nowhere/fake-cli") }) });
    expect(hidden).toContain("reports a missing executable as an observation and refuses a run before delivery");
    const generic = await failingCases(() => provider(), {
      missingExecutable: () => provider({ inspect: allUnavailable("executable_not_found", "not found"), refuse: () => new Error("spawn ENOENT") }),
    });
    expect(generic).toContain("reports a missing executable as an observation and refuses a run before delivery");
  });

  it("flags missing authentication reported as a provider error", async ({ expect }) => {
    const failed = await failingCases(() => provider(), {
      authRequired: { makeDriver: () => provider({ inspect: { auth: unavailable("provider_error", "401") }, refuse: () => new AuthRequiredError() }) },
    });
    expect(failed).toContain("reports missing authentication as auth_required, never as a login prompt");
  });

  it("flags an unknown method reported as a provider error", async ({ expect }) => {
    const failed = await failingCases(() => provider(), {
      unsupportedMethod: { makeDriver: () => provider({ inspect: { quota: unavailable("provider_error", "-32601 method not found") } }), panel: "quota" },
    });
    expect(failed).toContain("reports a method the provider does not know as unsupported");
  });

  it("flags a malformed answer reported as anything but malformed_response", async ({ expect }) => {
    const failed = await failingCases(() => provider(), {
      malformedInspect: { makeDriver: () => provider({ inspect: { models: observed([], fakeEvidence) } }), panel: "models" },
    });
    expect(failed).toContain("reports a malformed provider answer as malformed_response");
  });

  it("flags a run that ignores the configured model", async ({ expect }) => {
    const failed = await failingCases(() => provider(), { parity: { model: "fake-large", received: () => "fake-default" } });
    expect(failed).toContain("a run after prepare() uses the configured model");
  });

  it("flags an inspect() that records a conversation, and a watch that sees no run", async ({ expect }) => {
    const f = fixtures();
    const record = recordConversation(f.conversationDirs![0]!);
    const writesOnInspect = await failingCases(wellBehaved(f, { onInspect: (request) => record({ runId: `inspect-${randomUUID()}`, prompt: request.workspace } as RunRequest) }), f);
    expect(writesOnInspect).toContain("inspect() and prepare() create no conversation; a run does");
    const g = fixtures();
    const watchesNothing = await failingCases(() => provider(), { conversationDirs: g.conversationDirs! });
    expect(watchesNothing).toContain("inspect() and prepare() create no conversation; a run does");
  });

  it("flags an inspect() that starts an MCP server, and a run that starts none", async ({ expect }) => {
    const f = fixtures();
    const startsOnInspect = await failingCases(wellBehaved(f, { onInspect: startMcpServers }), { mcpServers: true });
    expect(startsOnInspect).toContain("inspect() starts none of the agent's MCP servers; a run does");
    const neverStarts = await failingCases(() => provider(), { mcpServers: true });
    expect(neverStarts).toContain("inspect() starts none of the agent's MCP servers; a run does");
  });

  it("flags a secret in an inspection and in a run's error", async ({ expect }) => {
    const inInspection = await failingCases(() => provider(), {
      canary: { secret: SECRET, makeDriver: () => provider({ inspect: { configuration: observed({ model: `key ${SECRET}` }, fakeEvidence) } }) },
    });
    expect(inInspection).toContain("never shows a secret from the driver's env or config");
    const inError = await failingCases(() => provider(), {
      canary: { secret: SECRET, makeDriver: () => provider({ fail: (prompt) => (prompt === "leak" ? new Error(`the provider refused the key ${SECRET}`) : undefined) }), prompts: ["leak"] },
    });
    expect(inError).toContain("never shows a secret from the driver's env or config");
  });

  it("flags a secret a driver saved in a thread's provider state, which only the thread store shows", async ({ expect }) => {
    // The secret is not registered with the run, so nothing removes it on the way to the store.
    const saving = (state: unknown) => (): Driver => {
      const base = provider();
      return {
        ...base,
        run: async (request, sink, signal) => {
          await request.providerState?.save(state);
          return base.run(request, sink, signal);
        },
      };
    };
    const canaryCase = "never shows a secret from the driver's env or config";
    const leaking = await failures(() => provider(), { canary: { secret: SECRET, makeDriver: saving({ conversation: [`the key is ${SECRET}`] }) } });
    expect(leaking.get(canaryCase)).toContain("the thread store");
    const clean = await failures(() => provider(), { canary: { secret: SECRET, makeDriver: saving({ conversation: ["the key is withheld"] }) } });
    expect(clean.has(canaryCase)).toBe(false);
  });
});
