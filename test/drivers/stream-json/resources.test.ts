/**
 * The agent's resources on the stream-json drivers, against the fake CLIs: MCP servers (env and
 * headers included) in a 0600 config file in a 0700 directory the process owns, strict unless
 * `userMcpServers`, never on the command line; skills as a plugin in the same directory; the
 * host-tools endpoint registered per process (opened for a started process, bound for a claimed
 * standby); everything released when the process retires, however it ends.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import type { HostToolsEndpoint, HostToolsLink, RunRequest } from "../../../src/driver/types.js";
import type { McpServerConfig } from "../../../src/driver/vocabulary.js";
import { ownedDirectoryPrefix } from "../../../src/input/stale.js";
import { claude } from "../../../src/drivers/claude/index.js";
import { codebuddy } from "../../../src/drivers/codebuddy/index.js";
import type { StreamJsonDriverConfig } from "../../../src/drivers/stream-json/config.js";
import type { StreamJsonDriver } from "../../../src/drivers/stream-json/driver.js";
import { installFakeCli, type FakeCli, type FakeDialect, type FakeLogEntry } from "../fake-cli/install.js";
import { runDirect } from "../helpers.js";

const ENV_CANARY = "env-canary-value-7f3a9c";
const HEADER_CANARY = "header-canary-value-51be02";
const TOKEN_CANARY = "endpoint-token-canary-c0ffee";

const servers: McpServerConfig[] = [
  { name: "db", command: process.execPath, args: ["-e", "process.exit(0)"], env: { DB_PASSWORD: ENV_CANARY } },
  { name: "docs", url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${HEADER_CANARY}` } },
];

/** A host-tools link whose endpoints only record what happens to them. */
function fakeLink(): HostToolsLink & { bind(endpoint: HostToolsEndpoint): Promise<void>; opened: FakeEndpoint[]; bound: HostToolsEndpoint[] } {
  const opened: FakeEndpoint[] = [];
  const bound: HostToolsEndpoint[] = [];
  return {
    serverName: "host",
    opened,
    bound,
    open: async () => {
      const endpoint = new FakeEndpoint(opened.length);
      opened.push(endpoint);
      return endpoint;
    },
    bind: async (endpoint) => void bound.push(endpoint),
  };
}

class FakeEndpoint implements HostToolsEndpoint {
  closed = 0;
  readonly http: HostToolsEndpoint["http"];
  readonly stdio: HostToolsEndpoint["stdio"];
  constructor(n: number) {
    this.http = { name: "host", url: `http://127.0.0.1:9/host/${n}`, headers: { Authorization: `Bearer ${TOKEN_CANARY}-${n}` } };
    this.stdio = { name: "host", command: process.execPath, args: [], env: {} };
  }
  async close(): Promise<void> {
    this.closed++;
  }
}

const mcpLogs = (log: FakeLogEntry[]) => log.filter((e) => e.event === "mcp-config");
const spawnsOf = (log: FakeLogEntry[]) => log.filter((e) => e.event === "spawn");

for (const dialect of ["claude", "codebuddy"] as FakeDialect[]) {
  describe(`${dialect}: resources reach the CLI`, () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli(dialect);
    });
    afterAll(() => fake.cleanup());

    const make = (extra: StreamJsonDriverConfig = {}): StreamJsonDriver =>
      (dialect === "claude" ? claude : codebuddy)({
        executable: fake.executable,
        configDir: fake.configDir,
        ...extra,
        env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: "sk-fake-0123456789", CODEBUDDY_API_KEY: "sk-fake-0123456789", ...extra.env },
      });
    const request = (extra: Partial<RunRequest> = {}) => ({ prompt: "hello", workspace: fake.workspace, resources: { tools: [], skills: [], mcp: servers }, ...extra });

    it("MCP servers with env and headers: a 0600 file in a 0700 directory, strict, values never on the command line; removed when the process retires", async () => {
      const driver = make();
      const before = (await fake.log()).length;
      const outcome = await runDirect(driver, request());
      expect(outcome.error).toBeUndefined();
      await driver.close();
      const log = (await fake.log()).slice(before);
      const [config] = mcpLogs(log);
      expect(config).toMatchObject({
        mode: "600",
        dirMode: "700",
        strict: true,
        servers: { db: { type: "stdio", env: ["DB_PASSWORD"] }, docs: { type: "http", headers: ["Authorization"], url: "http://127.0.0.1:9/mcp" } },
      });
      expect(String(config!.path).startsWith(fake.workspace)).toBe(false);
      // Named for this host, so a start after a SIGKILLed host sweeps it.
      expect(String(config!.path).startsWith(ownedDirectoryPrefix())).toBe(true);
      const argv = JSON.stringify(spawnsOf(log).map((s) => s.argv));
      for (const canary of [ENV_CANARY, HEADER_CANARY]) {
        expect(argv).not.toContain(canary);
        expect(JSON.stringify(outcome.events)).not.toContain(canary);
      }
      expect(existsSync(String(config!.path))).toBe(false);
    });

    it("userMcpServers keeps the user's servers: no --strict-mcp-config", async () => {
      const driver = make({ userMcpServers: true });
      const before = (await fake.log()).length;
      expect((await runDirect(driver, request())).error).toBeUndefined();
      await driver.close();
      expect(mcpLogs((await fake.log()).slice(before))[0]).toMatchObject({ strict: false });
    });

    it("without MCP servers no file is written, and the user's servers are still kept out", async () => {
      const driver = make();
      const before = (await fake.log()).length;
      expect((await runDirect(driver, request({ resources: { tools: [], skills: [], mcp: [] } }))).error).toBeUndefined();
      await driver.close();
      const log = (await fake.log()).slice(before);
      expect(mcpLogs(log)).toEqual([]);
      expect(spawnsOf(log)[0]!.argv).toContain("--strict-mcp-config");
    });

    it("the directory goes when the process crashes mid-turn and when the run is cancelled", async () => {
      const driver = make();
      const before = (await fake.log()).length;
      expect((await runDirect(driver, request({ prompt: "[[exit-mid-turn]]" }))).error).toBeDefined();
      const controller = new AbortController();
      const cancelled = runDirect(driver, request({ prompt: "[[slow]]" }), {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "message.delta") controller.abort(new Error("cancelled by the test"));
        },
      });
      expect((await cancelled).error).toBeDefined();
      const paths = mcpLogs((await fake.log()).slice(before)).map((e) => String(e.path));
      expect(paths).toHaveLength(2);
      for (const path of paths) expect(existsSync(path)).toBe(false);
      expect(driver.livePids()).toEqual([]);
      await driver.close();
    });

    it("skills: written as a plugin in the process's directory (never the workspace), removed on retire", async () => {
      const driver = make();
      const before = (await fake.log()).length;
      const skills = [{ name: "greet", description: "Greets", files: { "SKILL.md": "Say hello.", "notes/extra.md": "more" } }];
      expect((await runDirect(driver, request({ resources: { tools: [], skills, mcp: [] } }))).error).toBeUndefined();
      await driver.close();
      const [plugin] = (await fake.log()).slice(before).filter((e) => e.event === "plugin-dir");
      expect(plugin).toMatchObject({ skill: ["greet"] });
      expect(plugin!.files).toEqual(expect.arrayContaining([".claude-plugin/plugin.json", "skills/greet/SKILL.md", "skills/greet/notes/extra.md"]));
      expect(String(plugin!.path).startsWith(fake.workspace)).toBe(false);
      expect(existsSync(String(plugin!.path))).toBe(false);
    });

    it("host tools: a started process registers an endpoint of its own as an HTTP server with its headers, closed when it retires", async () => {
      const driver = make();
      const link = fakeLink();
      const before = (await fake.log()).length;
      const outcome = await runDirect(driver, request({ resources: { tools: [], skills: [], mcp: [] }, hostTools: link }));
      expect(outcome.error).toBeUndefined();
      await driver.close();
      const log = (await fake.log()).slice(before);
      expect(link.opened).toHaveLength(1);
      expect(link.bound).toEqual([]);
      expect(link.opened[0]!.closed).toBe(1);
      expect(mcpLogs(log)[0]).toMatchObject({ servers: { host: { type: "http", url: "http://127.0.0.1:9/host/0", headers: ["Authorization"] } } });
      expect(JSON.stringify(spawnsOf(log).map((s) => s.argv))).not.toContain(TOKEN_CANARY);
    });

    it("host tools on a standby: prepare opens the endpoint, the claiming run binds it, a run needing one never claims a standby without", async () => {
      const driver = make();
      const link = fakeLink();
      const prepareRequest = { workspace: fake.workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "s", hostTools: link };
      const prepared = await driver.prepare(prepareRequest, new AbortController().signal);
      expect(prepared.process).toBe("ready");
      expect(link.opened).toHaveLength(1);
      const outcome = await runDirect(driver, request({ resources: { tools: [], skills: [], mcp: [] }, hostTools: link, standby: prepared.standby! }));
      expect(outcome.error).toBeUndefined();
      expect(link.bound).toEqual([link.opened[0]]);
      expect(link.opened).toHaveLength(1);

      // A standby prepared without host tools cannot serve a run that has some: a fresh process does.
      const bare = await driver.prepare({ ...prepareRequest, hostTools: undefined }, new AbortController().signal);
      expect(bare.process).toBe("ready");
      const second = await runDirect(driver, request({ resources: { tools: [], skills: [], mcp: [] }, hostTools: link, standby: bare.standby! }));
      expect(second.error).toBeUndefined();
      expect(link.opened).toHaveLength(2);
      expect(link.bound).toHaveLength(1);
      await bare.standby!.close();
      await driver.close();
      expect(link.opened.map((e) => e.closed)).toEqual([1, 1]);
    });

    it("host tools on a thread's warm writer: the next turn binds the writer's endpoint, no second one is opened", async () => {
      const driver = make();
      const link = fakeLink();
      const resources = { tools: [], skills: [], mcp: [] };
      const first = await runDirect(driver, request({ resources, hostTools: link, keepWarm: true, thread: { id: "t1" } }));
      expect(first.error).toBeUndefined();
      const writer = first.response!.writer!;
      expect(writer).toBeDefined();
      expect(link.opened).toHaveLength(1);
      const session = first.response!.providerSessionId!;
      const second = await runDirect(driver, request({ resources, hostTools: link, standby: writer, keepWarm: true, thread: { id: "t1", providerSessionId: session } }));
      expect(second.error).toBeUndefined();
      expect(link.opened).toHaveLength(1);
      expect(link.bound).toEqual([link.opened[0]]);
      // The process (kept warm again) still holds its endpoint; it goes with the process.
      expect(link.opened[0]!.closed).toBe(0);
      await second.response!.writer!.close();
      expect(link.opened[0]!.closed).toBe(1);
      await driver.close();
    });

    it("a CLI without a login is not kept as the standby (its endpoint closes with it)", async () => {
      const driver = make({ env: { FAKE_CLI_SCENARIO: "auth-missing", ANTHROPIC_API_KEY: undefined, CODEBUDDY_API_KEY: undefined } });
      const link = fakeLink();
      const prepared = await driver.prepare(
        { workspace: fake.workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "s", hostTools: link },
        new AbortController().signal,
      );
      expect(prepared.inspection.auth).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
      expect(prepared.process).toBe("transient");
      expect(prepared.standby).toBeUndefined();
      await driver.close();
      expect(link.opened.map((e) => e.closed)).toEqual([1]);
    });

    it("inspect() starts no MCP server, the user's included, and says so in the mcp panel", async () => {
      const driver = make({ userMcpServers: true });
      const before = (await fake.log()).length;
      const inspection = await driver.inspect({ workspace: fake.workspace, resources: { tools: [], skills: [], mcp: servers } }, new AbortController().signal);
      await driver.close();
      const log = (await fake.log()).slice(before);
      expect(mcpLogs(log)).toEqual([]);
      expect(spawnsOf(log)[0]!.argv).toContain("--strict-mcp-config");
      expect(inspection.mcp).toMatchObject({ status: "unavailable", reason: { code: "not_started" } });
      expect(JSON.stringify(inspection)).not.toContain(ENV_CANARY);
    });
  });
}

describe("agent-level canaries", () => {
  let fake: FakeCli;
  beforeAll(async () => {
    fake = await installFakeCli("claude");
  });
  afterAll(() => fake.cleanup());

  it("driven directly, the driver redacts the MCP values the agent would (credentials at any length, others from the env floor), not a short flag", async () => {
    const driver = claude({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: "sk-fake-0123456789" } });
    const mcp: McpServerConfig[] = [{ name: "db", command: process.execPath, args: ["-e", "0"], env: { DB_PASSWORD: ENV_CANARY, DEBUG: "true" } }];
    try {
      const outcome = await runDirect(driver, { prompt: "[[leak-mcp]]", workspace: fake.workspace, resources: { tools: [], skills: [], mcp } });
      const error = String(outcome.error);
      expect(error).toContain("[REDACTED]");
      expect(error).not.toContain(ENV_CANARY);
      // A four-letter flag is no credential: redacting it would shred every message saying "true".
      expect(error).toContain("true");
    } finally {
      await driver.close();
    }
  });

  it("an MCP env value and header value never reach events, errors (stderr excerpts included) or inspection through the agent", async () => {
    const driver = claude({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: "sk-fake-0123456789" } });
    const agent = createAgent(driver, { workspace: fake.workspace, mcp: servers });
    try {
      const events: unknown[] = [];
      const stream = agent.stream("hello");
      for await (const event of stream) events.push(event);
      await stream.result;
      const failed = await agent.run("[[exit-mid-turn]]").catch((error: unknown) => error);
      // The CLI echoes every MCP env and header value on stderr and in its error text.
      const leakEvents: unknown[] = [];
      const leaking = agent.stream("[[leak-mcp]]");
      for await (const event of leaking) leakEvents.push(event);
      const leaked = await leaking.result.catch((error: unknown) => error);
      expect(leaked).toBeInstanceOf(Error);
      const inspection = await agent.inspect();
      const prepared = await agent.prepare();
      const seen = JSON.stringify([events, leakEvents, inspection, prepared, String(failed), (failed as Error).stack, String(leaked), (leaked as Error).stack, { ...(leaked as object) }]);
      expect(String(leaked)).toContain("[REDACTED]");
      expect(seen).toContain("[REDACTED]");
      for (const canary of [ENV_CANARY, HEADER_CANARY]) expect(seen).not.toContain(canary);
    } finally {
      await agent.close();
    }
  });
});
