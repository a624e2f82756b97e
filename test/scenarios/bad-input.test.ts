/**
 * Bad input from a careless host, through the public API only: misspelt and mistyped options on
 * createAgent, run, stream, threads, sessions and the attach server's config, empty and huge
 * prompts, and inputs or stored records that do not exist. Each is a typed error naming what was
 * wrong, before anything launches; nothing is silently ignored and nothing crashes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent, createSession, input, openSession, memorySessionStore, type AgentOptions, type CallOptions } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { parseServerConfig } from "../../src/server/index.js";
import { startServer } from "../server/api/helpers.js";

const root = mkdtempSync(join(tmpdir(), "aa-scenario-input-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const named = (name: string, key: string) => expect.objectContaining({ name, message: expect.stringContaining(key) });

describe("createAgent", () => {
  it.each<[string, unknown, string]>([
    ["a misspelt key", { workspce: root }, "workspce"],
    ["a workspace of the wrong type", { workspace: 42 }, "workspace"],
    ["a relative workspace", { workspace: "relative/dir" }, "workspace"],
    ["defaults of the wrong type", { defaults: "fast" }, "defaults"],
    ["a misspelt default", { defaults: { modle: "m" } }, "modle"],
    ["instructions of the wrong type", { instructions: 7 }, "instructions"],
    ["a negative lease ttl", { threadLeaseTtlMs: -1 }, "threadLeaseTtlMs"],
    ["a lease ttl that is not a number", { threadLeaseTtlMs: "30s" }, "threadLeaseTtlMs"],
    ["a writer idle time of the wrong type", { threadWriterIdleMs: "1" }, "threadWriterIdleMs"],
  ])("refuses %s with a ConfigError naming it", (_what, options, key) => {
    expect(() => createAgent(fakeDriver(), options as AgentOptions)).toThrow(named("ConfigError", key));
  });

  it("refuses options that are not an object", () => {
    expect(() => createAgent(fakeDriver(), "fast" as unknown as AgentOptions)).toThrow(expect.objectContaining({ name: "ConfigError" }));
    expect(() => createAgent(fakeDriver(), [] as unknown as AgentOptions)).toThrow(expect.objectContaining({ name: "ConfigError" }));
  });

  it("refuses a driver that is not one", () => {
    expect(() => createAgent(undefined as never)).toThrow(expect.objectContaining({ name: "ConfigError" }));
    expect(() => createAgent({} as never)).toThrow(expect.objectContaining({ name: "ConfigError" }));
  });
});

describe("run and stream", () => {
  it.each<[string, unknown, string]>([
    ["a misspelt key", { modle: "m" }, "modle"],
    ["a signal that is not an AbortSignal", { signal: "stop" }, "signal"],
    ["a timeout of the wrong type", { watchdogs: "1s" }, "watchdogs"],
  ])("refuses %s with a ConfigError naming it, without calling the driver", async (_what, options, key) => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    await expect(agent.run("x", options as CallOptions)).rejects.toThrow(named("ConfigError", key));
    expect(() => agent.stream("x", options as CallOptions)).toThrow(named("ConfigError", key));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it.each<[string, unknown]>([
    ["inputs that are not an array", { inputs: "a.png" }],
    ["an input that is not an input", { inputs: ["a.png"] }],
  ])("refuses %s with an InputError naming inputs, without calling the driver", async (_what, options) => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    await expect(agent.run("x", options as CallOptions)).rejects.toThrow(named("InputError", "input"));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it("a workspace that does not exist fails the run before delivery, naming it, and starts nothing", async () => {
    const driver = fakeDriver({ process: true });
    const missing = join(root, "missing");
    const agent = createAgent(driver, { workspace: missing });
    const types: string[] = [];
    const stream = agent.stream("x");
    for await (const event of stream) types.push(event.type);
    await expect(stream.result).rejects.toMatchObject({ code: "config_invalid", phase: "before_delivery", message: expect.stringContaining(missing) });
    expect(types.filter((type) => type.startsWith("run.") && type !== "run.started")).toEqual(["run.failed"]);
    expect(driver.probe.startedPids()).toEqual([]);
    await agent.close();
  });

  it("refuses options that are not an object", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    await expect(agent.run("x", "fast" as unknown as CallOptions)).rejects.toThrow(expect.objectContaining({ name: "ConfigError" }));
    await expect(agent.run("x", null as unknown as CallOptions)).rejects.toThrow(expect.objectContaining({ name: "ConfigError" }));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it("refuses a prompt that is not a string", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    await expect(agent.run(42 as unknown as string)).rejects.toThrow(expect.objectContaining({ name: expect.stringMatching(/ConfigError|InputError/) }));
    await expect(agent.run(undefined as unknown as string)).rejects.toThrow(expect.objectContaining({ name: expect.stringMatching(/ConfigError|InputError/) }));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it("an empty prompt is refused before launch, or runs: never a crash", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    const outcome = await agent.run("").then(
      (result) => ({ ok: true as const, text: result.text }),
      (error: unknown) => ({ ok: false as const, error: error as Error & { code?: string } }),
    );
    if (!outcome.ok) {
      expect(outcome.error.name).toMatch(/ConfigError|InputError/);
      expect(driver.probe.calls.run).toBe(0);
    }
    await agent.close();
  });

  it("a huge prompt (16 MiB) reaches a real child intact or is refused with a typed error", async () => {
    const driver = fakeDriver({ process: true });
    const agent = createAgent(driver, { workspace: root });
    const prompt = "p".repeat(16 * 2 ** 20);
    const outcome = await agent.run(prompt).then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );
    if (outcome) expect(outcome.name).toMatch(/ConfigError|InputError/);
    else expect(driver.probe.runs.at(-1)?.prompt.length).toBe(prompt.length);
    await agent.close();
    expect(driver.probe.livePids()).toEqual([]);
  }, 60_000);

  it("an input file that does not exist is an InputError naming its index (never its path), before the driver runs", async () => {
    const driver = fakeDriver({ inputs: { image: { modes: [] }, file: { modes: ["native"] }, audio: { modes: [] } } });
    const agent = createAgent(driver, { workspace: root });
    const missing = join(root, "nope.txt");
    await expect(agent.run("x", { inputs: [input.fromPath("file", missing)] })).rejects.toThrow(
      expect.objectContaining({ name: "InputError", index: 0, message: "input 0: the source does not exist" }),
    );
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });
});

describe("threads", () => {
  it.each<[string, unknown, string]>([
    ["a misspelt key", { idd: "t" }, "idd"],
    ["an id of the wrong type", { id: 42 }, "id"],
    ["an empty id", { id: "" }, "id"],
    ["metadata values that are not strings", { metadata: { n: 1 } }, "metadata"],
  ])("startThread refuses %s with a ConfigError naming it", async (_what, options, key) => {
    const agent = createAgent(fakeDriver(), { workspace: root });
    await expect(agent.startThread(options as { id?: string })).rejects.toThrow(named("ConfigError", key));
    await agent.close();
  });

  it("startThread refuses options that are not an object, and fork a misspelt key", async () => {
    const agent = createAgent(fakeDriver(), { workspace: root });
    await expect(agent.startThread(null as never)).rejects.toThrow(expect.objectContaining({ name: "ConfigError" }));
    await expect(agent.startThread("t" as never)).rejects.toThrow(expect.objectContaining({ name: "ConfigError" }));
    const thread = await agent.startThread({ id: "parent" });
    await thread.run("hello");
    await expect(thread.fork({ idd: "child" } as never)).rejects.toThrow(named("ConfigError", "idd"));
    await expect(agent.resumeThread("child")).rejects.toMatchObject({ code: "thread_not_found" });
    await expect((await thread.fork({ id: "child" })).run("hi")).resolves.toMatchObject({ text: "ok" });
    await agent.close();
  });

  it("resumeThread of an id that is not a string, or empty, is a ConfigError", async () => {
    const agent = createAgent(fakeDriver(), { workspace: root });
    await expect(agent.resumeThread(42 as never)).rejects.toThrow(expect.objectContaining({ name: "ConfigError" }));
    await expect(agent.resumeThread("")).rejects.toThrow(expect.objectContaining({ name: "ConfigError" }));
    await agent.close();
  });

  it("resumeThread of an id never stored is thread_not_found", async () => {
    const agent = createAgent(fakeDriver(), { workspace: root });
    await expect(agent.resumeThread("never-stored")).rejects.toMatchObject({ code: "thread_not_found" });
    await agent.close();
  });

  it("a thread call refuses a misspelt key, and the thread stays usable", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    const thread = await agent.startThread();
    await expect(thread.run("x", { modle: "m" } as never)).rejects.toThrow(named("ConfigError", "modle"));
    expect(() => thread.stream("x", { modle: "m" } as never)).toThrow(named("ConfigError", "modle"));
    expect(driver.probe.calls.run).toBe(0);
    await expect(thread.run("hello")).resolves.toMatchObject({ text: "ok" });
    await agent.close();
  });
});

describe("sessions", () => {
  it("createSession refuses a misspelt key naming it", async () => {
    const agent = createAgent(fakeDriver(), { workspace: root });
    await expect(createSession(agent, { idleSleepMss: 5 } as never)).rejects.toThrow(named("ConfigError", "idleSleepMss"));
    await agent.close();
  });

  it("openSession of an id never stored is session_not_found", async () => {
    const agent = createAgent(fakeDriver(), { workspace: root });
    await expect(openSession(agent, "ses_none", { store: memorySessionStore() })).rejects.toMatchObject({ code: "session_not_found" });
    await agent.close();
  });

  it("a session's submit and configure refuse a misspelt option naming it, and queue nothing", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: root });
    const session = await createSession(agent);
    await expect(Promise.resolve().then(() => session.submit("x", { modle: "m" } as never))).rejects.toThrow(named("ConfigError", "modle"));
    await expect(Promise.resolve().then(() => session.configure({ modle: "m" } as never))).rejects.toThrow(named("ConfigError", "modle"));
    await expect(Promise.resolve().then(() => session.submit(42 as never))).rejects.toThrow(expect.objectContaining({ name: expect.stringMatching(/ConfigError|InputError/) }));
    expect(driver.probe.calls.run).toBe(0);
    await session.close();
    await agent.close();
  });
});

describe("attach server config", () => {
  it.each<[string, unknown, string]>([
    ["a misspelt top-level key", { agents: { a: { driver: "codex" } }, prot: 1 }, "prot"],
    ["a misspelt agent key", { agents: { a: { driver: "codex", workspce: root } } }, "workspce"],
    ["an unknown driver", { agents: { a: { driver: "codx" } } }, "codx"],
    ["a port of the wrong type", { agents: { a: { driver: "codex" } }, port: "80" }, "port"],
  ])("parseServerConfig refuses %s naming it", (_what, config, key) => {
    expect(() => parseServerConfig(config as never)).toThrow(named("ConfigError", key));
  });
});

describe("attach server requests", () => {
  it("a misspelt key in a body or a query is a 400 naming it, never ignored", async () => {
    const server = await startServer();
    try {
      const created = await server.api("/api/sessions", { json: { agent: "fake" } });
      const { id } = (await created.json()) as { id: string };
      const refused: [string, RequestInit & { json?: unknown }, string][] = [
        ["/api/sessions", { json: { agnet: "fake" } }, "agnet"],
        [`/api/sessions/${id}/submit`, { json: { txt: "hi" } }, "txt"],
        [`/api/sessions/${id}/configure`, { json: { modle: "m" } }, "modle"],
        ["/api/sessions?stat=running", {}, "stat"],
        ["/api/threads?agnet=fake", {}, "agnet"],
        [`/api/threads/${id}/history?limt=1`, {}, "limt"],
        [`/api/sessions/${id}/events?afer=1`, {}, "afer"],
      ];
      for (const [path, init, key] of refused) {
        const response = await server.api(path, init);
        expect({ path, status: response.status }).toEqual({ path, status: 400 });
        expect(await response.text()).toContain(key);
      }
      const listed = await server.api("/api/sessions?state=running&limit=5");
      expect(listed.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
