/**
 * `serve` and the client commands against the real attach server (built CLI as a child, fake
 * driver agents from a config file, port 0, a temporary state directory): the printed console
 * URL (with the token only on a terminal or with --print-token), the token file, a session driven
 * end to end, lists that say when they may be cut, an approval answered by keystrokes in `attach`
 * under a pseudo-terminal, usage errors, and a clean stop on SIGINT.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bin, runCli } from "./run-cli.js";
import { startServe as serve, useServeDir, type ServeChild } from "./serve-child.js";
import { TmuxTerminal } from "./tmux.js";

const APPROVAL = {
  requestId: "req_1",
  kind: "command",
  summary: "touch built.txt",
  options: [
    { id: "yes", label: "Yes", kind: "allow_once" },
    { id: "no", label: "No", kind: "deny" },
  ],
};

const fx = useServeDir("aa-cli-serve-", {
  scripts: [
    {
      promptContains: "approve",
      script: {
        steps: [{ markDelivered: true }, { approve: APPROVAL }, { emit: { type: "message.completed", itemId: "m1", text: "after the approval" } }],
        text: "after the approval",
      },
    },
  ],
  script: { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m1", text: "plain answer" } }], text: "plain answer" },
});
let server: ServeChild;

beforeAll(async () => {
  server = await serve(["--config", fx.configFile, "--state-dir", fx.stateDir]);
});

afterAll(async () => {
  if (server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await once(server.child, "exit");
  }
});

function client(...args: string[]) {
  return runCli([...args, "--url", server.url, "--state-dir", fx.stateDir]);
}

async function waitForState(id: string, state: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { stdout } = await client("sessions", "show", id, "--json");
    if ((JSON.parse(stdout) as { state: string }).state === state) return;
    if (Date.now() > deadline) throw new Error(`session ${id} never reached ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("serve", () => {
  it("--json prints {url, consoleUrl, tokenFile} without the token; the token file is 0600", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const token = (await readFile(join(fx.stateDir, "token"), "utf8")).trim();
    expect((await stat(join(fx.stateDir, "token"))).mode & 0o777).toBe(0o600);
    expect(server.printed).toEqual({ url: server.url, consoleUrl: `${server.url}/`, tokenFile: join(fx.stateDir, "token") });
    expect(server.stdoutLine).not.toContain(token);
    expect(server.stderr()).not.toContain(token);
  });

  it("--json --print-token puts the token in consoleUrl's fragment; a given token is named by its variable", async () => {
    const token = "a-given-token-of-enough-length";
    const own = await serve(["--state-dir", join(fx.dir, "printed"), "--config", fx.configFile, "--print-token", "--token-env", "MY_SERVE_TOKEN"], { MY_SERVE_TOKEN: token });
    try {
      expect(own.printed).toEqual({ url: own.url, consoleUrl: `${own.url}/#token=${token}`, tokenEnv: "MY_SERVE_TOKEN" });
    } finally {
      own.child.kill("SIGTERM");
      await once(own.child, "exit");
    }
  });

  it("drives a session with the client commands: create, submit, show, list, attach --json, threads, archive", async () => {
    const created = await client("sessions", "create", "worker", "--id", "cli-s1");
    expect(created).toMatchObject({ code: 0, stdout: "cli-s1\n" });
    const submitted = await client("sessions", "submit", "cli-s1", "hello");
    expect(submitted.code).toBe(0);
    expect(submitted.stdout).toMatch(/^queued \S+\n$/);
    await waitForState("cli-s1", "idle");

    const list = await client("sessions", "list");
    expect(list.stdout).toMatch(/^cli-s1\s+worker\s+idle\s+open\s+0\s/m);

    // attach replays the whole log, so whenever the archive lands it sees it and ends by itself.
    const attached = runCli(["attach", "cli-s1", "--json", "--url", server.url, "--state-dir", fx.stateDir]);
    const show = JSON.parse((await client("sessions", "show", "cli-s1", "--json")).stdout) as { threadId: string; lastSeq: number };
    const threads = JSON.parse((await client("threads", "list", "--json")).stdout) as { threads: { id: string }[] };
    expect(threads.threads.map((t) => t.id)).toContain(show.threadId);
    const history = JSON.parse((await client("threads", "history", show.threadId, "--json")).stdout) as { turns: { prompt: string }[] };
    expect(history.turns.map((t) => t.prompt)).toEqual(["hello"]);
    // A live session holds its thread.
    const busy = await client("threads", "delete", show.threadId);
    expect(busy.stderr).toMatch(/^error thread_busy: /);
    expect(busy.code).toBe(1);

    expect(show.lastSeq).toBeGreaterThan(0);
    expect(await client("sessions", "archive", "cli-s1")).toMatchObject({ code: 0, stdout: "archived cli-s1\n" });
    const { code, stdout } = await attached;
    expect(code).toBe(0);
    const frames = stdout.trim().split("\n").map((line) => JSON.parse(line) as { seq: number; event: { type: string; text?: string } });
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(frames.find((f) => f.event.type === "message.completed")?.event.text).toBe("plain answer");
    expect(frames.at(-1)!.event).toMatchObject({ type: "session.state", state: "archived" });

    expect((await client("sessions", "submit", "cli-s1", "more")).code).toBe(1);
    const deleted = await client("threads", "delete", show.threadId);
    expect(deleted.stderr).toBe("");
    expect(deleted.code).toBe(0);
    expect((await client("threads", "show", show.threadId)).code).toBe(1);
  });

  it("attach on a terminal answers the run's approval by keystroke; the run sees the chosen option", async () => {
    await client("sessions", "create", "worker", "--id", "cli-s2");
    await client("sessions", "submit", "cli-s2", "approve please");
    await using term = TmuxTerminal.start([process.execPath, bin, "attach", "cli-s2", "--url", server.url, "--state-dir", fx.stateDir]);
    const prompt = await term.waitFor(/navigate/);
    expect(prompt).toMatch(/Approve command: touch built\.txt/);
    term.keys("Down");
    await term.waitFor(/❯ No/);
    term.keys("Enter");
    await term.waitFor(/fake_approval: decision: deny/);
    await term.waitFor(/after the approval/);
    await client("sessions", "archive", "cli-s2");
    expect(await term.exitCode()).toBe(0);
  });

  it("a wrong token exits 2", async () => {
    const { code, stderr } = await runCli(["sessions", "list", "--url", server.url, "--state-dir", fx.dir], { AGENT_ADAPTOR_TOKEN: "not-the-token" });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error unauthorized: the server refused the token/);
  });

  it.each([
    ["a non-loopback host without a given token", ["--host", "0.0.0.0"], "config_invalid"],
    ["an unknown driver in the config", ["--config", "BAD"], "config_invalid"],
  ])("exits 2 for %s", async (_, args, errorCode) => {
    const bad = join(fx.dir, "bad.json");
    await writeFile(bad, JSON.stringify({ agents: { x: { driver: "nope", workspace: fx.dir } } }));
    const { code, stdout, stderr } = await runCli(["serve", "--port", "0", "--state-dir", join(fx.dir, "other"), ...args.map((a) => (a === "BAD" ? bad : a))]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(new RegExp(`^error ${errorCode}: \\S`));
  });

  it("without --json, piped (a service's log): the console URL without the token, and where the token is", async () => {
    const env = { ...process.env };
    delete env.AGENT_ADAPTOR_TOKEN;
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--state-dir", join(fx.dir, "human"), "--config", fx.configFile], { stdio: ["ignore", "pipe", "pipe"], env });
    try {
      // The lines may arrive in one chunk: read them through the iterator, which buffers.
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const printed: string[] = [];
      for (let i = 0; i < 4; i++) printed.push((await lines.next()).value as string);
      const url = /^agent-adaptor serve: (http:\/\/127\.0\.0\.1:\d+)$/.exec(printed[0]!)?.[1];
      expect(url).toBeDefined();
      const token = (await readFile(join(fx.dir, "human", "token"), "utf8")).trim();
      expect(printed.slice(1)).toEqual([
        `open the console: ${url}/#token=<token>`,
        `  <token>: the content of ${join(fx.dir, "human", "token")} (the token is printed only on a terminal, or with --print-token)`,
        "(Ctrl-C stops the server)",
      ]);
      expect(printed.join("\n")).not.toContain(token);
    } finally {
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(0);
    }
  });

  it("without --json on a terminal: the console URL with the token in its fragment; Ctrl-C stops it with 0", async () => {
    const own = join(fx.dir, "tty");
    await using term = TmuxTerminal.start([process.execPath, bin, "serve", "--port", "0", "--state-dir", own, "--config", fx.configFile], {
      width: 200,
      env: { AGENT_ADAPTOR_TOKEN: undefined },
    });
    const screen = await term.waitFor(/Ctrl-C stops the server/);
    const url = /agent-adaptor serve: (http:\/\/127\.0\.0\.1:\d+)/.exec(screen)?.[1];
    const token = (await readFile(join(own, "token"), "utf8")).trim();
    expect(screen).toContain(`open the console: ${url}/#token=${token}\n`);
    expect(screen).not.toContain("<token>");
    term.keys("C-c");
    expect(await term.exitCode()).toBe(0);
  });

  it("lists say on stderr, never in --json, when they filled their --limit and may be cut", async () => {
    for (const id of ["cli-l1", "cli-l2"]) expect((await client("sessions", "create", "worker", "--id", id)).code).toBe(0);
    await client("sessions", "submit", "cli-l2", "hello");
    await waitForState("cli-l2", "idle");

    const cut = await client("sessions", "list", "--limit", "2");
    expect(cut.code).toBe(0);
    expect(cut.stdout.trim().split("\n").slice(1).map((line) => line.split(/\s+/)[0])).toEqual(["cli-l2", "cli-l1"]);
    expect(cut.stderr).toBe("showing the newest 2 sessions; there may be more (--limit N shows up to 1000)\n");

    const whole = await client("sessions", "list");
    expect(whole.stdout).toMatch(/^cli-l1\s/m);
    expect(whole.stderr).toBe("");

    const json = await client("sessions", "list", "--limit", "2", "--json");
    expect((JSON.parse(json.stdout) as { sessions: unknown[] }).sessions).toHaveLength(2);
    expect(json.stderr).toBe("");

    const threads = await client("threads", "list", "--limit", "1");
    expect(threads.stdout.trim().split("\n")).toHaveLength(2);
    expect(threads.stderr).toBe("showing the newest 1 thread; there may be more (--limit N shows up to 1000)\n");
  });

  it("stops cleanly on SIGINT with exit 0", async () => {
    const own = await serve(["--state-dir", join(fx.dir, "own"), "--config", fx.configFile]);
    own.child.kill("SIGINT");
    const [code] = (await once(own.child, "exit")) as [number | null];
    expect(code).toBe(0);
    await expect(fetch(`${own.url}/api/health`)).rejects.toThrow();
  });
});
