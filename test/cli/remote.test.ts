/**
 * Client commands (`sessions`, `threads`, `attach`) over real HTTP against a stand-in of the
 * attach server's contract: tables, `--json`, the token's sources, and HTTP answers as exit codes.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { useStubServer } from "./stub-server.js";

const fx = useStubServer("s3cret-token-value");
beforeEach(() => {
  fx.stub.eventRequests.length = 0;
  fx.stub.sessions.clear();
  fx.stub.threads.clear();
});

/** A client command against the stub with the token in the environment. */
function client(...args: string[]) {
  return runCli([...args, "--url", fx.stub.url, "--state-dir", fx.stateDir], { AGENT_ADAPTOR_TOKEN: fx.stub.token });
}

/** The column each header word starts at, and every row's cells cut at those columns. */
function columns(table: string) {
  const [header, ...rows] = table.trimEnd().split("\n");
  const starts = [...header!.matchAll(/\S+/g)].map((m) => m.index);
  return { starts, rows: rows.map((row) => starts.map((start, i) => row.slice(start, starts[i + 1]).trim())), lines: rows };
}

describe("sessions", () => {
  it("list: an aligned table, every column starting where its header does", async () => {
    fx.stub.addSession("short");
    const long = fx.stub.addSession("a-much-longer-session-id");
    long.state = "running";
    long.guardrails.spentUsd = 0.5;
    long.queued.push("p1", "p2");
    const { code, stdout, stderr } = await client("sessions", "list");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const table = columns(stdout);
    expect(stdout.split("\n")[0]).toMatch(/^id\s+agent\s+state\s+gate\s+queued\s+cost\s+tokens\s+updated$/);
    expect(table.rows).toEqual([
      ["a-much-longer-session-id", "fake", "running", "open", "2", "$0.5000", "0", "2026-01-01T00:00:00.000Z"],
      ["short", "fake", "idle", "open", "0", "$0.0000", "0", "2026-01-01T00:00:00.000Z"],
    ]);
    // Every cell but the last is followed by the padding up to the next column.
    for (const line of table.lines) for (const start of table.starts.slice(1)) expect(line[start - 1]).toBe(" ");
    expect(stdout).not.toContain("\u001b[");
  });

  it("list --json prints the server's answer", async () => {
    fx.stub.addSession("one");
    const { code, stdout } = await client("sessions", "list", "--json");
    expect(code).toBe(0);
    const body = JSON.parse(stdout) as { sessions: { id: string; state: string }[] };
    expect(body.sessions.map((s) => [s.id, s.state])).toEqual([["one", "idle"]]);
  });

  it("show, create, submit, interrupt, archive", async () => {
    fx.stub.addSession("s1");
    const show = await client("sessions", "show", "s1");
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^id\s+s1$/m);
    expect(show.stdout).toMatch(/^state\s+idle$/m);
    expect(show.stdout).toMatch(/^thread\s+thread-s1$/m);

    const created = await client("sessions", "create", "fake", "--id", "s2");
    expect(created).toMatchObject({ code: 0, stdout: "s2\n" });
    const createdJson = await client("sessions", "create", "fake", "--json");
    expect(JSON.parse(createdJson.stdout)).toMatchObject({ agent: "fake", state: "idle" });

    expect(await client("sessions", "submit", "s1", "hello there")).toMatchObject({ code: 0, stdout: "queued p1\n" });
    expect(JSON.parse((await client("sessions", "submit", "s1", "again", "--json")).stdout)).toEqual({ promptId: "p2" });
    expect(fx.stub.sessions.get("s1")!.queued).toEqual(["p1", "p2"]);

    expect(await client("sessions", "interrupt", "s1")).toMatchObject({ code: 0, stdout: "nothing was running\n" });
    expect(await client("sessions", "archive", "s1")).toMatchObject({ code: 0, stdout: "archived s1\n" });
    expect(fx.stub.sessions.get("s1")!.state).toBe("archived");
  });

  it.each([
    ["an unknown session: 404 exits 1", ["sessions", "show", "nope"], 1, "not_found"],
    ["an unknown agent: 404 exits 1", ["sessions", "create", "ghost"], 1, "not_found"],
    ["an archived session: 409 exits 1", ["sessions", "submit", "gone", "hi"], 1, "session_archived"],
    ["an empty message: 400 exits 2", ["sessions", "submit", "live", ""], 2, "body_invalid"],
  ])("%s", async (_, args, exitCode, errorCode) => {
    fx.stub.addSession("live");
    fx.stub.addSession("gone").state = "archived";
    const { code, stdout, stderr } = await client(...args);
    expect(code).toBe(exitCode);
    expect(stdout).toBe("");
    expect(stderr).toMatch(new RegExp(`^error ${errorCode}: \\S`));
  });
});

describe("the token", () => {
  it("a wrong token exits 2 naming how to give one, and is never printed", async () => {
    const { code, stdout, stderr } = await runCli(["sessions", "list", "--url", fx.stub.url, "--state-dir", fx.stateDir], { AGENT_ADAPTOR_TOKEN: "wrong-token-xyz" });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error unauthorized: the server refused the token; give the server's token with --token-env NAME, the AGENT_ADAPTOR_TOKEN environment variable, or --state-dir/);
    expect(stderr).not.toContain("wrong-token-xyz");
  });

  it("no token at all exits 2", async () => {
    const { code, stderr } = await runCli(["sessions", "list", "--url", fx.stub.url, "--state-dir", fx.stateDir]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error unauthorized: no token was given;/);
  });

  it("is read from --token-env NAME, and from the token file in --state-dir", async () => {
    const named = await runCli(["sessions", "list", "--url", fx.stub.url, "--token-env", "MY_SERVER_TOKEN", "--json"], { MY_SERVER_TOKEN: fx.stub.token });
    expect(named.code).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), "aa-cli-token-"));
    try {
      await writeFile(join(dir, "token"), `${fx.stub.token}\n`, { mode: 0o600 });
      const fromFile = await runCli(["sessions", "list", "--url", fx.stub.url, "--state-dir", dir, "--json"]);
      expect(fromFile.code).toBe(0);
      expect(JSON.parse(fromFile.stdout)).toEqual({ sessions: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("threads", () => {
  beforeEach(() => {
    fx.stub.threads.set("t-1", { id: "t-1", driver: "fake", workspace: "/w", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-02T00:00:00.000Z", metadata: {} });
    fx.stub.threads.set("t-busy", { id: "t-busy", driver: "codex", workspace: "/w", leased: true, updatedAt: "2026-01-03T00:00:00.000Z", metadata: {} });
  });

  it("list, show, history", async () => {
    const list = await client("threads", "list");
    expect(list.code).toBe(0);
    expect(columns(list.stdout).rows).toEqual([
      ["t-1", "fake", "no", "2026-01-02T00:00:00.000Z"],
      ["t-busy", "codex", "yes", "2026-01-03T00:00:00.000Z"],
    ]);
    const show = await client("threads", "show", "t-busy");
    expect(show.stdout).toMatch(/^leased\s+yes \(a live session holds it\)$/m);
    const history = await client("threads", "history", "t-1");
    expect(history.code).toBe(0);
    expect(columns(history.stdout).rows).toEqual([
      ["2", "failed", "2026-01-01T00:00:00.000Z", "0", "second prompt"],
      ["1", "completed", "2026-01-01T00:00:00.000Z", "1", "first"],
    ]);
    const json = await client("threads", "history", "t-1", "--json");
    expect((JSON.parse(json.stdout) as { turns: unknown[] }).turns).toHaveLength(2);
  });

  it("delete: 204 prints what was deleted; a leased thread exits 1 with thread_busy", async () => {
    const deleted = await client("threads", "delete", "t-1");
    expect(deleted.stderr).toBe("");
    expect(deleted).toMatchObject({ code: 0, stdout: "deleted t-1\n" });
    expect(fx.stub.threads.has("t-1")).toBe(false);
    const busy = await client("threads", "delete", "t-busy");
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/^error thread_busy: /);
    const busyJson = await client("threads", "delete", "t-busy", "--json");
    expect(busyJson).toMatchObject({ code: 1, stdout: "" });
  });
});

describe("attach", () => {
  const started = { type: "run.started", runId: "run_1", seq: 0, at: 0, driver: "fake" };

  it("replays the log, follows it across a dropped connection with Last-Event-ID, and ends when the session is archived", async () => {
    fx.stub.addSession("live");
    fx.stub.push("live", { type: "session.state", state: "running" });
    fx.stub.push("live", started);
    const outcome = runCli(["attach", "live", "--json", "--url", fx.stub.url, "--state-dir", fx.stateDir], { AGENT_ADAPTOR_TOKEN: fx.stub.token });
    await until(() => fx.stub.eventRequests.length === 1);
    for (let i = 0; i < 5; i++) fx.stub.push("live", { type: "message.delta", runId: "run_1", seq: i + 1, at: 0, itemId: "m", text: `t${i}` });
    fx.stub.dropStreams();
    await until(() => fx.stub.eventRequests.length === 2);
    for (let i = 5; i < 10; i++) fx.stub.push("live", { type: "message.delta", runId: "run_1", seq: i + 1, at: 0, itemId: "m", text: `t${i}` });
    fx.stub.sessions.get("live")!.state = "archived";
    fx.stub.push("live", { type: "session.state", state: "archived" });
    const { code, stdout, stderr } = await outcome;
    expect(code).toBe(0);
    expect(stderr).toBe("attached to live (idle); Ctrl-C detaches\n");
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as { seq: number; event: { type: string } });
    expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    // The second connection resumed after the last event the first one delivered.
    expect(fx.stub.eventRequests).toEqual([null, "7"]);
  });

  it("renders text inline and events as lines, from --after", async () => {
    fx.stub.addSession("s");
    fx.stub.push("s", started);
    fx.stub.push("s", { type: "message.delta", runId: "run_1", seq: 1, at: 0, itemId: "m", text: "Hello " });
    fx.stub.push("s", { type: "message.delta", runId: "run_1", seq: 2, at: 0, itemId: "m", text: "world" });
    fx.stub.push("s", { type: "message.completed", runId: "run_1", seq: 3, at: 0, itemId: "m", text: "Hello world" });
    fx.stub.push("s", { type: "tool.started", runId: "run_1", seq: 4, at: 0, callId: "c1", kind: "command", title: "ls -la" });
    fx.stub.push("s", { type: "tool.completed", runId: "run_1", seq: 5, at: 0, callId: "c1", status: "completed", exitCode: 0 });
    fx.stub.push("s", { type: "session.state", state: "archived" });
    const { code, stdout } = await runCli(["attach", "s", "--after", "1", "--url", fx.stub.url, "--state-dir", fx.stateDir], { AGENT_ADAPTOR_TOKEN: fx.stub.token });
    expect(code).toBe(0);
    expect(stdout).toBe("Hello world\n#4 tool.started [command] ls -la\n#5 tool.completed c1 completed exit=0\nsession.state archived\n");
  });

  it("ends when the server closes the stream of a session that is archived by then", async () => {
    fx.stub.addSession("quiet");
    fx.stub.push("quiet", started);
    const outcome = runCli(["attach", "quiet", "--json", "--url", fx.stub.url, "--state-dir", fx.stateDir], { AGENT_ADAPTOR_TOKEN: fx.stub.token });
    await until(() => fx.stub.eventRequests.length === 1);
    fx.stub.sessions.get("quiet")!.state = "archived";
    fx.stub.dropStreams();
    const { code, stdout } = await outcome;
    expect(code).toBe(0);
    expect(stdout.trim().split("\n").map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual([1]);
    expect(fx.stub.eventRequests).toEqual([null]);
  });

  it("an unknown session exits 1", async () => {
    const { code, stderr } = await client("attach", "nope");
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error not_found: /);
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
