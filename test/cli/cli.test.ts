import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

function cli(...args: string[]) {
  return cliWith({}, ...args);
}

function cliWith(env: Record<string, string>, ...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe("agent-adaptor command (built)", () => {
  it("lists drivers", () => {
    const { code, stdout } = cli("drivers");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^fake\s/m);
  });

  it("inspect prints every panel with status, reason and evidence", () => {
    const { code, stdout } = cli("inspect", "--driver", "fake");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^models\s+observed\s+1: fake-model\s+fake fake\/models@0\.0\.0-fake/m);
    expect(stdout).toMatch(/^commands\s+unsupported\s+method_unsupported:/m);
    expect(stdout).toMatch(/^auth\s+unavailable\s+auth_required:/m);
  });

  it("inspect --json prints the DTO", () => {
    const { code, stdout } = cli("inspect", "--driver", "fake", "--json");
    expect(code).toBe(0);
    const inspection = JSON.parse(stdout);
    expect(inspection.models.status).toBe("observed");
    expect(inspection.driver.id).toBe("fake");
  });

  it("run streams readable events and the result", () => {
    const { code, stdout } = cli("run", "hello", "--driver", "fake", "--model", "m1");
    expect(code).toBe(0);
    expect(stdout).toContain("#0 run.started driver=fake model=m1");
    expect(stdout).toContain("Hello from the fake driver.");
    expect(stdout).toMatch(/run\.completed in \d+ ms/);
  });

  it("run --json prints one event per line, terminal last", () => {
    const { code, stdout } = cli("run", "hello", "--driver", "fake", "--json");
    expect(code).toBe(0);
    const events = stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events[0].type).toBe("run.started");
    expect(events.at(-1).type).toBe("run.completed");
    expect(events.map((e: { seq: number }) => e.seq)).toEqual(events.map((_: unknown, i: number) => i));
  });

  it("exits non-zero on run.failed, with the failure on stderr and not on stdout", () => {
    const { code, stdout, stderr } = cli("run", "fail please", "--driver", "fake");
    expect(code).toBe(1);
    expect(stderr).toBe("error provider_error: the fake provider was asked to fail\n");
    expect(stdout).toContain("#0 run.started driver=fake");
    expect(stdout).not.toMatch(/fail/);
  });

  it("without a terminal and without a policy, an approval is denied with a line on stderr (never a wait)", () => {
    const { code, stdout, stderr } = cli("run", "approve this", "--driver", "fake");
    expect(code).toBe(0);
    expect(stderr).toBe("approval denied (no terminal to ask; pass --approve or --deny): command: touch hello.txt\n");
    expect(stdout).toMatch(/approval\.resolved deny \(by stream\)/);
    expect(stdout).toMatch(/fake_approval: decision: deny/);
  });

  it.each([
    ["--approve", "allow"],
    ["--deny", "deny"],
  ])("%s answers every approval without asking", (flag, decision) => {
    const { code, stdout, stderr } = cli("run", "approve this", "--driver", "fake", flag, "--json");
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const events = stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; decision?: { decision: string } });
    expect(events.find((e) => e.type === "approval.resolved")?.decision?.decision).toBe(decision);
  });

  it("piped: no colours and no progress, even where CI would turn colours on", () => {
    const { code, stdout, stderr } = cliWith({ CI: "1", FORCE_COLOR: "" }, "run", "hello", "--driver", "fake");
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).not.toContain("\u001b[");
  });

  it("--help lists the exit codes", () => {
    const { code, stdout } = cli("--help");
    expect(code).toBe(0);
    expect(stdout).toMatch(/Exit codes:\n\s+0\s+done\n\s+1\s+.*\n\s+2\s+bad usage or configuration/);
    expect(stdout).toMatch(/130\s+cancelled/);
  });

  it("drivers --json parses", () => {
    const { code, stdout } = cli("drivers", "--json");
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { name: string }[]).map((d) => d.name)).toContain("fake");
  });

  it("prints the final text once", () => {
    const { code, stdout } = cli("run", "hello", "--driver", "fake");
    expect(code).toBe(0);
    expect(stdout.split("Hello from the fake driver.").length - 1).toBe(1);
  });

  it("--version prints the package version", () => {
    const { version } = JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string };
    const { code, stdout, stderr } = cli("--version");
    expect(code).toBe(0);
    expect(stdout).toBe(`${version}\n`);
    expect(stderr).toBe("");
  });

  it.each([
    ["a missing --script file", ["testing", "model-server", "--script", "/nonexistent/scenario.json"], "config_invalid"],
    ["a missing executable (run)", ["run", "hi", "--driver", "codex", "--executable", "/nonexistent/codex"], "executable_not_found"],
    ["a missing executable (inspect)", ["inspect", "--driver", "codex", "--executable", "/nonexistent/codex"], "executable_not_found"],
    ["a bad flag value", ["testing", "model-server", "--script", "x.json", "--port", "abc"], "usage_invalid"],
    ["an unknown option", ["run", "hi", "--driver", "fake", "--colour"], "usage_invalid"],
    ["an unknown command", ["bogus"], "usage_invalid"],
    ["a missing argument", ["run"], "usage_invalid"],
    ["--approve with --deny", ["run", "hi", "--driver", "fake", "--approve", "--deny"], "usage_invalid"],
    ["an unknown attach option", ["attach", "s1", "--bogus"], "usage_invalid"],
    ["a missing session id", ["sessions", "attach"], "usage_invalid"],
    ["a bad --limit", ["sessions", "list", "--limit", "x"], "usage_invalid"],
    ["a --limit of 0", ["sessions", "list", "--limit", "0"], "usage_invalid"],
    ["a --limit over the server's 1000", ["threads", "list", "--limit", "1001"], "usage_invalid"],
    ["a missing serve --config file", ["serve", "--config", "/nonexistent/agents.toml", "--port", "0"], "config_invalid"],
    ["no server at --url", ["sessions", "list", "--url", "http://127.0.0.1:9"], "server_unreachable"],
    ["an unset --token-env variable", ["sessions", "list", "--token-env", "AA_TEST_UNSET_TOKEN"], "config_invalid"],
  ])("exits 2 with `error <code>: <message>` on stderr for %s", (_, args, errorCode) => {
    const { code, stdout, stderr } = cli(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^error ${errorCode}: \\S`));
    expect(stdout).not.toMatch(/error/);
  });

  it("prints an error code and message without a stack; the stack only with --debug", () => {
    const plain = cli("run", "x", "--driver", "nope");
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('error config_invalid: unknown driver "nope"');
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = cli("--debug", "run", "x", "--driver", "nope");
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

});

describe("agent-adaptor testing model-server", () => {
  it("serves a script on 127.0.0.1 and prints its URL first", async () => {
    const dir = await mkdtemp(join(tmpdir(), "aa-cli-"));
    const script = join(dir, "script.json");
    await writeFile(script, JSON.stringify({ models: ["m-1"], turns: [{ reply: { text: "scripted hello" } }] }));
    const child = spawn(process.execPath, [bin, "testing", "model-server", "--script", script], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
      const url = chunk.toString().split("\n")[0]!.trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m-1", messages: [{ role: "user", content: "hi" }] }),
      });
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]!.message.content).toBe("scripted hello");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("agent-adaptor testing model-server --json", () => {
  it("prints {url} as its first line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "aa-cli-"));
    const script = join(dir, "script.json");
    await writeFile(script, JSON.stringify({ turns: [{ reply: { text: "hi" } }] }));
    const child = spawn(process.execPath, [bin, "testing", "model-server", "--script", script, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
      const { url } = JSON.parse(chunk.toString().split("\n")[0]!) as { url: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("agent-adaptor demo", () => {
  it("runs one real Codex turn offline and writes the file", () => {
    const { code, stdout, stderr } = cli("demo");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/#0 run\.started driver=codex/);
    expect(stdout).toMatch(/tool\.started \[command\]/);
    expect(stdout).toContain('hello.txt on disk: "written by a real agent turn"');
    expect(stdout).toMatch(/run\.completed in \d+ ms/);
  });

  it("--json: the events, then the outcome, one JSON line each", () => {
    const { code, stdout, stderr } = cli("demo", "--json");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "run.started", driver: "codex" });
    expect(lines.some((l) => l.type === "tool.started")).toBe(true);
    expect(lines.at(-2)).toMatchObject({ type: "run.completed" });
    expect(lines.at(-1)).toMatchObject({ file: { name: "hello.txt", content: "written by a real agent turn" } });
  });
});
