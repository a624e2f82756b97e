/**
 * How the Codex driver hands the agent's resources to app-server, on the fake app-server: MCP
 * servers in the thread request's config (never on the command line), the host-tools endpoint
 * per process (a run's own, a standby's bound to the run that claims it, a warm writer's kept),
 * released when the process retires; skills as an extra skills root; Codex's MCP tool approval
 * routed to the host; account/read asked once per prepared process.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import type { HostToolsEndpoint, HostToolsLink } from "../../../src/driver/types.js";
import type { McpServerConfig } from "../../../src/driver/vocabulary.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import { ownedDirectoryPrefix } from "../../../src/input/stale.js";
import { readFakeLog, runDirect, writeFakeCodex } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "codex-resources-"));
const executable = writeFakeCodex(root);
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ENV_CANARY = "env-canary-4c1d0e";
const HEADER_CANARY = "header-canary-9a7f22";
const MCP: McpServerConfig[] = [
  { name: "docs", command: process.execPath, args: ["-e", "process.stderr.write('up')"], env: { DOCS_TOKEN: ENV_CANARY } },
  { name: "remote", url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${HEADER_CANARY}` } },
];

function fake(): { driver: CodexDriver; workspace: string; log: string } {
  const dir = join(root, `case-${++n}`);
  const workspace = join(dir, "workspace");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(dir, "home"), { recursive: true });
  const log = join(dir, "log.jsonl");
  return { driver: codex({ executable, home: join(dir, "home"), env: { FAKE_CODEX_LOG: log } }), workspace, log };
}

const requests = (log: string, method: string) => readFakeLog(log).filter((e) => e.event === "request" && e.method === method);

/** A stand-in for the agent's loopback server: counts endpoints opened, bound and closed. */
function stubLink() {
  const opened: HostToolsEndpoint[] = [];
  const closed: string[] = [];
  const bound: string[] = [];
  const link: HostToolsLink & { bind(endpoint: HostToolsEndpoint): Promise<void> } = {
    serverName: "host",
    open: async () => {
      const id = `ep${opened.length}`;
      const endpoint: HostToolsEndpoint = {
        http: { name: "host", url: `http://127.0.0.1:1/${id}`, headers: { Authorization: `Bearer token-${id}` } },
        stdio: { name: "host", command: process.execPath, args: [], env: {} },
        close: async () => void closed.push(id),
      };
      opened.push(endpoint);
      return endpoint;
    },
    bind: async (endpoint) => void bound.push(endpoint.http.url.split("/").pop()!),
  };
  return { link, opened, closed, bound };
}

const neverWait = new AbortController().signal;

describe("codex resources on a fake app-server", () => {
  it("declares the agent's MCP servers in the thread request, not on the command line; inspect starts none", async () => {
    const { driver, workspace, log } = fake();
    const agent = createAgent(driver, { workspace, mcp: MCP });
    try {
      const inspection = await agent.inspect();
      expect(inspection.mcp.value?.servers).toEqual([
        { name: "docs", status: "configured" },
        { name: "remote", status: "configured" },
      ]);
      expect(requests(log, "thread/start")).toHaveLength(0);
      await agent.run("hi");
    } finally {
      await agent.close();
    }
    const entries = readFakeLog(log);
    for (const spawn of entries.filter((e) => e.event === "spawn")) {
      expect(JSON.stringify(spawn.args)).not.toContain(ENV_CANARY);
      expect(JSON.stringify(spawn.args)).not.toContain(HEADER_CANARY);
      expect(JSON.stringify(spawn.args)).not.toContain("mcp_servers");
    }
    const config = requests(log, "thread/start")[0]!.params!.config as Record<string, unknown>;
    expect(config["mcp_servers.docs"]).toEqual({ command: process.execPath, args: (MCP[0] as { args: string[] }).args, env: { DOCS_TOKEN: ENV_CANARY } });
    expect(config["mcp_servers.remote"]).toEqual({ url: "http://127.0.0.1:9/mcp", http_headers: { Authorization: `Bearer ${HEADER_CANARY}` } });
  });

  it("lets MCP tools run without asking under approval never, and leaves Codex's default otherwise", async () => {
    const { driver, workspace, log } = fake();
    try {
      await runDirect(driver, { prompt: "hi", workspace, policy: { approval: "never" }, resources: { tools: [], skills: [], mcp: MCP } });
      await runDirect(driver, { prompt: "hi", workspace, policy: { approval: "on-request" }, resources: { tools: [], skills: [], mcp: MCP } });
    } finally {
      await driver.close();
    }
    const [never, onRequest] = requests(log, "thread/start").map((r) => r.params!.config as Record<string, Record<string, unknown>>);
    expect(never!["mcp_servers.docs"]!.default_tools_approval_mode).toBe("approve");
    expect(never!["mcp_servers.remote"]!.default_tools_approval_mode).toBe("approve");
    expect(onRequest!["mcp_servers.docs"]!.default_tools_approval_mode).toBeUndefined();
  });

  it("registers a run's own host-tools endpoint with its thread and closes it with the process", async () => {
    const { driver, workspace, log } = fake();
    const { link, opened, closed, bound } = stubLink();
    try {
      const outcome = await runDirect(driver, { prompt: "hi", workspace, hostTools: link });
      expect(outcome.error).toBeUndefined();
    } finally {
      await driver.close();
    }
    expect(opened).toHaveLength(1);
    expect(bound).toEqual([]);
    expect(closed).toEqual(["ep0"]);
    const config = requests(log, "thread/start")[0]!.params!.config as Record<string, unknown>;
    expect(config["mcp_servers.host"]).toEqual({ url: "http://127.0.0.1:1/ep0", http_headers: { Authorization: "Bearer token-ep0" } });
    for (const spawn of readFakeLog(log).filter((e) => e.event === "spawn")) expect(JSON.stringify(spawn.args)).not.toContain("token-ep0");
  });

  it("a process that crashes mid-turn releases its endpoint and skills directory before the driver closes", async () => {
    const { driver, workspace, log } = fake();
    const { link, closed } = stubLink();
    const skills = [{ name: "crash-lane", description: "A skill", files: { "SKILL.md": "Do it.\n" } }];
    try {
      const outcome = await runDirect(driver, { prompt: "EXIT_MID_TURN", workspace, hostTools: link, resources: { tools: [], skills, mcp: [] } });
      expect(outcome.error).toMatchObject({ code: "provider_exited" });
      const rootDir = (requests(log, "skills/extraRoots/set")[0]!.params!.extraRoots as string[])[0]!;
      expect(closed).toEqual(["ep0"]);
      expect(existsSync(rootDir)).toBe(false);
    } finally {
      await driver.close();
    }
  });

  it("a standby opens its endpoint at prepare; the run that claims it binds that endpoint and asks account/read no more", async () => {
    const { driver, workspace, log } = fake();
    const standbyLink = stubLink();
    const runLink = stubLink();
    try {
      const prepared = await driver.prepare(
        { workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "sig", hostTools: standbyLink.link },
        neverWait,
      );
      expect(prepared.process).toBe("ready");
      expect(standbyLink.opened).toHaveLength(1);
      const outcome = await runDirect(driver, { prompt: "hi", workspace, standby: prepared.standby!, hostTools: runLink.link });
      expect(outcome.error).toBeUndefined();
    } finally {
      await driver.close();
    }
    expect(runLink.opened).toHaveLength(0);
    expect(runLink.bound).toEqual(["ep0"]);
    expect(standbyLink.closed).toEqual(["ep0"]);
    expect(readFakeLog(log).filter((e) => e.event === "spawn")).toHaveLength(1);
    expect(requests(log, "account/read")).toHaveLength(1);
    const config = requests(log, "thread/start")[0]!.params!.config as Record<string, unknown>;
    expect(config["mcp_servers.host"]).toMatchObject({ url: "http://127.0.0.1:1/ep0" });
  });

  it("a standby prepared without host tools gets the run's endpoint before its thread starts", async () => {
    const { driver, workspace, log } = fake();
    const runLink = stubLink();
    try {
      const prepared = await driver.prepare({ workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "sig" }, neverWait);
      await runDirect(driver, { prompt: "hi", workspace, standby: prepared.standby!, hostTools: runLink.link });
    } finally {
      await driver.close();
    }
    expect(runLink.opened).toHaveLength(1);
    expect(runLink.closed).toEqual(["ep0"]);
    expect(readFakeLog(log).filter((e) => e.event === "spawn")).toHaveLength(1);
    expect(requests(log, "thread/start")[0]!.params!.config).toMatchObject({ "mcp_servers.host": { url: "http://127.0.0.1:1/ep0" } });
  });

  it("a warm writer whose tools cannot be confirmed is not used: the run resumes on a fresh process with its own endpoint", async () => {
    // The stub endpoint does not answer, so the writer's thread cannot be shown to offer the run's
    // tools (writer-tools.ts); the lane shows a writer that does being used.
    const { driver, workspace, log } = fake();
    const first = stubLink();
    const second = stubLink();
    try {
      const turn1 = await runDirect(driver, { prompt: "hi", workspace, keepWarm: true, thread: { id: "t1" }, hostTools: first.link });
      const session = turn1.events.find((e) => e.type === "thread.bound");
      const providerSessionId = session && "providerSessionId" in session ? String(session.providerSessionId) : "";
      const turn2 = await runDirect(driver, { prompt: "again", workspace, standby: turn1.response!.writer!, thread: { id: "t1", providerSessionId }, hostTools: second.link });
      expect(turn2.error).toBeUndefined();
      expect(turn2.events.find((e) => e.type === "thread.bound")?.provenance?.event).toBe("thread/resume");
      expect(first.closed).toEqual(["ep0"]);
      expect(second.opened).toHaveLength(1);
    } finally {
      await driver.close();
    }
    expect(second.closed).toEqual(["ep0"]);
    expect(readFakeLog(log).filter((e) => e.event === "spawn")).toHaveLength(2);
  });

  it("a warm writer whose thread has no endpoint is not used by a run with host tools", async () => {
    const { driver, workspace, log } = fake();
    const link = stubLink();
    try {
      const turn1 = await runDirect(driver, { prompt: "hi", workspace, keepWarm: true, thread: { id: "t1" } });
      const session = turn1.events.find((e) => e.type === "thread.bound");
      const providerSessionId = session && "providerSessionId" in session ? String(session.providerSessionId) : "";
      const turn2 = await runDirect(driver, { prompt: "again", workspace, standby: turn1.response!.writer!, thread: { id: "t1", providerSessionId }, hostTools: link.link });
      expect(turn2.error).toBeUndefined();
    } finally {
      await driver.close();
    }
    expect(readFakeLog(log).filter((e) => e.event === "spawn")).toHaveLength(2);
    expect(requests(log, "thread/resume")[0]!.params!.config).toMatchObject({ "mcp_servers.host": { url: "http://127.0.0.1:1/ep0" } });
    expect(link.closed).toEqual(["ep0"]);
  });

  it("routes Codex's MCP tool approval to the host and answers its decision", async () => {
    const { driver, workspace } = fake();
    try {
      const allowed = await runDirect(driver, { prompt: "MCPTOOL", workspace }, { approve: () => ({ decision: "allow", scope: "session" }) });
      expect(allowed.approvals).toEqual([
        expect.objectContaining({ kind: "tool", summary: "Run MCP tool lookup of server host", input: { key: "alpha" } }),
      ]);
      expect(allowed.approvals[0]!.options.map((o) => o.id)).toEqual(["accept", "acceptForSession", "decline"]);
      expect(allowed.response?.text).toBe('mcp approval: {"action":"accept","content":{},"_meta":{"persist":"session"}}');
      const denied = await runDirect(driver, { prompt: "MCPTOOL", workspace }, { approve: () => ({ decision: "deny" }) });
      expect(denied.response?.text).toBe('mcp approval: {"action":"decline","content":null,"_meta":null}');
    } finally {
      await driver.close();
    }
  });

  it("materializes skills into a 0700 directory of the process that inspect lists and close removes", async () => {
    const { driver, workspace, log } = fake();
    const agent = createAgent(driver, { workspace, skills: [{ name: "fake-lane", description: "A skill", files: { "SKILL.md": "Do it.\n" } }] });
    let rootDir: string | undefined;
    try {
      // prepare() keeps its process, so the directory is there to look at.
      const report = await agent.prepare();
      expect(report.inspection.skills.value?.skills.map((s) => s.name)).toEqual(["fake-skill", "fake-lane"]);
      const roots = requests(log, "skills/extraRoots/set")[0]!.params!.extraRoots as string[];
      expect(roots).toHaveLength(1);
      rootDir = roots[0]!;
      expect(rootDir.startsWith(workspace)).toBe(false);
      // Named for this host, so a start after a SIGKILLed host sweeps it.
      expect(rootDir.startsWith(ownedDirectoryPrefix())).toBe(true);
      expect(statSync(rootDir).mode & 0o777).toBe(0o700);
      expect(readFileSync(join(rootDir, "fake-lane", "SKILL.md"), "utf8")).toContain("Do it.");
      await agent.run("hi");
    } finally {
      await agent.close();
    }
    expect(existsSync(rootDir!)).toBe(false);
    expect(requests(log, "skills/extraRoots/set")).toHaveLength(1);
  });
});

