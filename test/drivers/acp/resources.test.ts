/**
 * The ACP driver's resource delivery against the fake agent: what each session request offers
 * (MCP servers, the host-tools endpoint over HTTP or its stdio bridge, the preset's `_meta`),
 * when the endpoint is opened, bound and closed (run, standby, warm writer), and the refusals that
 * come before any session exists.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { HostToolsEndpoint, RunRequest } from "../../../src/driver/types.js";
import { acp, type AcpConfig, type AcpDriver } from "../../../src/drivers/acp/index.js";
import { FeatureUnsupportedError } from "../../../src/errors/index.js";
import { runDirect } from "../helpers.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-resources-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

interface Setup {
  driver: AcpDriver;
  workspace: string;
  /** Each session request the agent received, in order. */
  sessions(): { method: string; mcpServers: unknown[] | null; meta: unknown }[];
}

function setup(env: Record<string, string> = {}, preset?: AcpConfig["preset"]): Setup {
  const dir = join(root, `case-${++n}`);
  const workspace = join(dir, "ws");
  mkdirSync(workspace, { recursive: true });
  const log = join(dir, "sessions.jsonl");
  const driver = acp({ command: process.execPath, args: [fixture], env: { FAKE_ACP_SESSION_LOG: log, ...env }, ...(preset ? { preset } : {}) });
  const sessions = () =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { method: string; mcpServers: unknown[] | null; meta: unknown })
      : [];
  return { driver, workspace, sessions };
}

/** A host-tools link that records what the driver does with it. */
function fakeLink() {
  const log: string[] = [];
  let opened = 0;
  const endpoint = (id: number): HostToolsEndpoint => ({
    http: { name: "host", url: `http://127.0.0.1:9/mcp/${id}`, headers: { Authorization: `Bearer host-token-${id}` } },
    stdio: { name: "host", command: process.execPath, args: ["-e", ""], env: { HOST_TOOLS_TOKEN: `host-token-${id}` } },
    close: async () => {
      log.push(`close ${id}`);
    },
  });
  const link: NonNullable<RunRequest["hostTools"]> = {
    serverName: "host",
    open: async () => {
      const id = ++opened;
      log.push(`open ${id}`);
      return endpoint(id);
    },
    bind: async (e) => void log.push(`bind ${e.http.url.split("/").at(-1)}`),
  };
  return { link, log };
}

const closedSoon = (log: string[], entry: string) => vi.waitFor(() => expect(log).toContain(entry), { timeout: 10_000, interval: 20 });

describe("ACP resources (fake agent)", () => {
  it("offers the run's host-tools endpoint over HTTP to an agent advertising mcpCapabilities.http, beside the agent's stdio server, and closes it when the process retires", async () => {
    const { driver, workspace, sessions } = setup({ FAKE_ACP_MCP_HTTP: "1" });
    const { link, log } = fakeLink();
    try {
      const out = await runDirect(driver, {
        prompt: "hello",
        workspace,
        hostTools: link,
        resources: { tools: [], skills: [], mcp: [{ name: "one-shot", command: process.execPath, args: ["-e", ""], env: { DB_PASSWORD: "mcp-env-secret" } }] },
      });
      expect(out.error).toBeUndefined();
      expect(sessions().map(({ method, mcpServers, meta }) => ({ method, mcpServers, meta }))).toEqual([
        {
          method: "session/new",
          mcpServers: [
            { name: "one-shot", command: process.execPath, args: ["-e", ""], env: [{ name: "DB_PASSWORD", value: "mcp-env-secret" }] },
            { type: "http", name: "host", url: "http://127.0.0.1:9/mcp/1", headers: [{ name: "Authorization", value: "Bearer host-token-1" }] },
          ],
          meta: null,
        },
      ]);
      expect(JSON.stringify(out.events)).not.toContain("mcp-env-secret");
      expect(JSON.stringify(out.events)).not.toContain("host-token-1");
      await closedSoon(log, "close 1");
      expect(log).toEqual(["open 1", "close 1"]);
    } finally {
      await driver.close();
    }
  });

  it("offers the endpoint's stdio bridge to an agent without HTTP MCP, its credentials as env pairs", async () => {
    const { driver, workspace, sessions } = setup();
    const { link, log } = fakeLink();
    try {
      const out = await runDirect(driver, { prompt: "hello", workspace, hostTools: link });
      expect(out.error).toBeUndefined();
      expect(sessions()[0]!.mcpServers).toEqual([{ name: "host", command: process.execPath, args: ["-e", ""], env: [{ name: "HOST_TOOLS_TOKEN", value: "host-token-1" }] }]);
      await closedSoon(log, "close 1");
    } finally {
      await driver.close();
    }
  });

  it("refuses an HTTP MCP server the agent does not advertise before any session exists, naming the server, without its headers, opening no endpoint", async () => {
    const { driver, workspace, sessions } = setup();
    const { link, log } = fakeLink();
    try {
      const out = await runDirect(driver, {
        prompt: "hello",
        workspace,
        hostTools: link,
        resources: { tools: [], skills: [], mcp: [{ name: "remote", url: "http://127.0.0.1:9/remote", headers: { Authorization: "Bearer header-secret" } }] },
      });
      expect(out.error).toBeInstanceOf(FeatureUnsupportedError);
      expect((out.error as Error).message).toMatch(/MCP servers over HTTP .*\(mcp "remote"\)/);
      expect((out.error as Error).message).not.toContain("header-secret");
      expect(out.delivered).toBe(false);
      expect(sessions()).toEqual([]);
      expect(log).toEqual([]);
    } finally {
      await driver.close();
    }
  });

  it("a standby prepared with host tools keeps its endpoint: the claiming run binds it (no second open) and it closes with the process", async () => {
    const { driver, workspace, sessions } = setup({ FAKE_ACP_MCP_HTTP: "1" });
    const { link, log } = fakeLink();
    try {
      const prepared = await driver.prepare({ workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "s", hostTools: link }, new AbortController().signal);
      expect(prepared.process).toBe("ready");
      expect(log).toEqual(["open 1"]);
      const out = await runDirect(driver, { prompt: "hello", workspace, hostTools: link, standby: prepared.standby! });
      expect(out.error).toBeUndefined();
      expect(sessions()[0]!.mcpServers).toEqual([{ type: "http", name: "host", url: "http://127.0.0.1:9/mcp/1", headers: [{ name: "Authorization", value: "Bearer host-token-1" }] }]);
      await closedSoon(log, "close 1");
      expect(log).toEqual(["open 1", "bind 1", "close 1"]);
    } finally {
      await driver.close();
    }
  });

  it("a standby closed unclaimed closes its endpoint", async () => {
    const { driver, workspace } = setup();
    const { link, log } = fakeLink();
    try {
      const prepared = await driver.prepare({ workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "s", hostTools: link }, new AbortController().signal);
      await prepared.standby!.close();
      expect(log).toEqual(["open 1", "close 1"]);
    } finally {
      await driver.close();
    }
  });

  it("a standby whose agent crashes releases what its process owned at once (endpoint closed, Copilot-style instructions directory removed), before any close()", async () => {
    const { driver, workspace } = setup({}, { id: "copilot-like", name: "Copilot-like", instructions: "copilot_instructions_dir" } as AcpConfig["preset"]);
    const { link, log } = fakeLink();
    try {
      const resources = { tools: [], skills: [], mcp: [], instructions: "Answer in haiku." };
      const prepared = await driver.prepare({ workspace, resources, policy: {}, signature: "s", hostTools: link }, new AbortController().signal);
      const pid = prepared.standby!.pid!;
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const dir = environ.find((entry) => entry.startsWith("COPILOT_CUSTOM_INSTRUCTIONS_DIRS="))!.split("=")[1]!;
      expect(readFileSync(join(dir, "agent.instructions.md"), "utf8")).toContain("Answer in haiku.");
      process.kill(pid, "SIGKILL");
      await closedSoon(log, "close 1");
      await vi.waitFor(() => expect(existsSync(dir)).toBe(false), { timeout: 10_000, interval: 20 });
      await prepared.standby!.close();
      expect(log).toEqual(["open 1", "close 1"]);
    } finally {
      await driver.close();
    }
  });

  it("a warm writer's next turn binds the endpoint its session was offered; a writer whose session has none is resumed in a fresh process that offers one", async () => {
    const { driver, workspace, sessions } = setup({ FAKE_ACP_MCP_HTTP: "1" });
    const { link, log } = fakeLink();
    const thread = { id: "t1" };
    try {
      const first = await runDirect(driver, { prompt: "hello", workspace, hostTools: link, thread, keepWarm: true });
      const sessionId = first.response!.providerSessionId!;
      const second = await runDirect(driver, { prompt: "again", workspace, hostTools: link, thread: { id: "t1", providerSessionId: sessionId }, keepWarm: true, standby: first.response!.writer! });
      expect(second.error).toBeUndefined();
      expect(log).toEqual(["open 1", "bind 1"]);
      expect(sessions().map((s) => s.method)).toEqual(["session/new"]);
      await second.response!.writer!.close();
      expect(log).toEqual(["open 1", "bind 1", "close 1"]);

      // A writer from a turn without host tools: its session was offered no endpoint.
      const bare = await runDirect(driver, { prompt: "hello", workspace, thread: { id: "t2" }, keepWarm: true });
      const bareSession = bare.response!.providerSessionId!;
      const next = await runDirect(driver, { prompt: "again", workspace, hostTools: link, thread: { id: "t2", providerSessionId: bareSession }, standby: bare.response!.writer! });
      expect(next.error).toBeUndefined();
      const last = sessions().at(-1)!;
      expect(last.method).toBe("session/load");
      expect(last.mcpServers).toEqual([{ type: "http", name: "host", url: "http://127.0.0.1:9/mcp/2", headers: [{ name: "Authorization", value: "Bearer host-token-2" }] }]);
      await closedSoon(log, "close 2");
    } finally {
      await driver.close();
    }
  });

  it("sends instructions as _meta.systemPrompt.append on every session request where the preset says so (claude-agent-acp)", async () => {
    const { driver, workspace, sessions } = setup({}, { id: "claude-like", name: "Claude-like", instructions: "session_meta_system_prompt" } as AcpConfig["preset"]);
    try {
      expect(driver.descriptor().resources.instructions).toBe(true);
      const resources = { tools: [], skills: [], mcp: [], instructions: "Speak like a lighthouse keeper." };
      const first = await runDirect(driver, { prompt: "hello", workspace, resources, thread: { id: "t" } });
      await runDirect(driver, { prompt: "again", workspace, resources, thread: { id: "t", providerSessionId: first.response!.providerSessionId! } });
      expect(sessions().map((s) => [s.method, s.meta])).toEqual([
        ["session/new", { systemPrompt: { append: "Speak like a lighthouse keeper." } }],
        ["session/load", { systemPrompt: { append: "Speak like a lighthouse keeper." } }],
      ]);
    } finally {
      await driver.close();
    }
  });

  it("declares no instructions and no skills for a generic agent, and MCP over stdio with HTTP as advertised", () => {
    const { driver } = setup();
    expect(driver.descriptor().resources).toEqual({ instructions: false, hostTools: true, skills: false, mcp: { stdio: true, http: "advertised" } });
  });
});
