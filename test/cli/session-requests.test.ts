/**
 * `sessions pending`, `answer`, `budget` and `reset-run-ceiling` against the real attach server
 * (the fake driver): a question answered by `--answer` flags, or on a terminal (tmux, against the
 * stand-in server, which keeps the answers sent) by a prompt per question; a budget raised;
 * refusals as exit codes with the server's error code.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, tempDir, until, type TestServer } from "../server/api/helpers.js";
import { bin, runCli } from "./run-cli.js";
import { useStubServer } from "./stub-server.js";
import { TmuxTerminal } from "./tmux.js";

const QUESTIONS = [
  { id: "colour", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] },
  { id: "name", question: "Name the file" },
];
const SCRIPTS = [
  {
    promptContains: "ask",
    script: {
      steps: [
        { markDelivered: true },
        { ask: { requestId: "q_1", questions: QUESTIONS } },
        { emit: { type: "message.completed", itemId: "m1", text: "after the question" } },
      ],
    },
  },
];

const workspace = tempDir("aa-cli-requests-");
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ config: { agents: { fake: { driver: "fake", workspace, options: { scripts: SCRIPTS } } } } });
});
afterAll(async () => {
  await s?.close();
  rmSync(workspace, { recursive: true, force: true });
});

function client(...args: string[]) {
  return runCli([...args, "--url", s.url, "--state-dir", s.stateDir], { AGENT_ADAPTOR_TOKEN: s.token });
}

interface Pending {
  questions: { requestId: string }[];
}

/** A session whose run waits on the two questions. */
async function asking(id: string): Promise<void> {
  expect((await s.api("/api/sessions", { json: { agent: "fake", id } })).status).toBe(201);
  expect((await s.api(`/api/sessions/${id}/submit`, { json: { text: "ask me" } })).status).toBe(202);
  await until(async () => (((await (await s.api(`/api/sessions/${id}/pending`)).json()) as Pending).questions.length > 0 ? true : undefined));
}

/** The `question.resolved` and final message of the session's log, once the run has ended. */
async function answeredRun(id: string): Promise<void> {
  await until(async () => (((await (await s.api(`/api/sessions/${id}`)).json()) as { state: string }).state === "idle" ? true : undefined));
  expect(((await (await s.api(`/api/sessions/${id}/pending`)).json()) as Pending).questions).toEqual([]);
}

describe("sessions pending and answer", () => {
  it("lists the waiting question, answers it from --answer flags, and the run goes on", async () => {
    await asking("ask-flags");
    const listed = await client("sessions", "pending", "ask-flags");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^question\s+q_1\s+colour: Which colour\? \[red \| blue\]$/m);
    expect(listed.stdout).toMatch(/^\s+name: Name the file$/m);
    const json = JSON.parse((await client("sessions", "pending", "ask-flags", "--json")).stdout) as { questions: { requestId: string }[] };
    expect(json.questions.map((q) => q.requestId)).toEqual(["q_1"]);

    // No answers and no terminal: refused before anything is sent.
    const refused = await client("sessions", "answer", "ask-flags");
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toMatch(/^error usage_invalid: give --answer ID=VALUE/);

    const answered = await client("sessions", "answer", "ask-flags", "--answer", "colour=blue", "--answer", "name=notes.txt");
    expect(answered).toMatchObject({ code: 0, stdout: "answered q_1\n", stderr: "" });
    await answeredRun("ask-flags");

    const nothing = await client("sessions", "answer", "ask-flags", "--decline");
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^error request_not_pending: no question is waiting/);
    expect((await client("sessions", "pending", "ask-flags")).stdout).toBe("nothing is waiting for an answer\n");
  });

  it("declines with --decline; an unknown question is the server's 422 (exit 2)", async () => {
    await asking("ask-decline");
    const wrong = await client("sessions", "answer", "ask-decline", "q_1", "--answer", "shade=green");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error response_invalid: /);
    expect(await client("sessions", "answer", "ask-decline", "q_1", "--decline", "--json")).toMatchObject({ code: 0, stdout: '{\n  "ok": true\n}\n' });
    await answeredRun("ask-decline");
    const malformed = await client("sessions", "answer", "ask-decline", "--answer", "colour");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/^error usage_invalid: --answer takes ID=VALUE/);
  });
});

describe("sessions answer on a terminal", () => {
  const fx = useStubServer("answer-tty-token");

  function answering(id: string): TmuxTerminal {
    fx.stub.addSession(id).questions.push({ requestId: "q_1", runId: "run_1", questions: [...QUESTIONS, { id: "key", question: "API key?", secret: true }] });
    return TmuxTerminal.start([process.execPath, bin, "sessions", "answer", id, ...fx.target()], { env: { AGENT_ADAPTOR_TOKEN: fx.stub.token } });
  }

  it("prompts each question (a choice, a line, a secret line not echoed) and sends the answers", async () => {
    await using term = answering("tty-answer");
    await term.waitFor(/Which colour\?/);
    term.keys("Down");
    await term.waitFor(/❯ blue/);
    term.keys("Enter");
    await term.waitFor(/Name the file:\s*$/m);
    term.keys("report.md", "Enter");
    await term.waitFor(/API key\?:\s*$/m);
    term.keys("hunter2-secret", "Enter");
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    expect(screen).toMatch(/Which colour\?: blue/);
    expect(screen).toMatch(/answered q_1/);
    expect(screen).not.toContain("hunter2-secret");
    expect(fx.stub.sessions.get("tty-answer")!.answers).toEqual([{ requestId: "q_1", body: { answers: { colour: "blue", name: "report.md", key: "hunter2-secret" } } }]);
  });

  it("Ctrl-C at a prompt sends nothing and exits 130", async () => {
    await using term = answering("tty-cancel");
    await term.waitFor(/Which colour\?/);
    term.keys("Enter");
    await term.waitFor(/Name the file:\s*$/m);
    term.keys("C-c");
    expect(await term.exitCode()).toBe(130);
    expect(fx.stub.sessions.get("tty-cancel")!.answers).toEqual([]);
  });
});

describe("sessions budget and reset-run-ceiling", () => {
  it("raises the session's ceilings and prints them; a ceiling it was created without is refused", async () => {
    expect((await s.api("/api/sessions", { json: { agent: "fake", id: "budgeted", budget: { sessionUsd: 1, sessionTokens: 100, runTokens: 50 } } })).status).toBe(201);
    const raised = await client("sessions", "budget", "budgeted", "--usd", "0.5", "--tokens", "50");
    expect(raised.code).toBe(0);
    expect(raised.stdout).toMatch(/^session ceiling\s+\$1\.5000, 150 tokens$/m);
    expect(raised.stdout).toMatch(/^run ceiling\s+none, 50 tokens$/m);
    expect(raised.stdout).toMatch(/^tripped\s+no$/m);
    const json = JSON.parse((await client("sessions", "budget", "budgeted", "--tokens", "10", "--json")).stdout) as { guardrails: { budget: { sessionTokens: number } } };
    expect(json.guardrails.budget.sessionTokens).toBe(160);
    expect(await client("sessions", "reset-run-ceiling", "budgeted")).toMatchObject({ code: 0, stderr: "" });

    const none = await client("sessions", "budget", "budgeted");
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error usage_invalid: give --usd, --tokens or both/);
    const negative = await client("sessions", "budget", "budgeted", "--usd", "-1");
    expect(negative.code).toBe(2);

    expect((await s.api("/api/sessions", { json: { agent: "fake", id: "unbudgeted" } })).status).toBe(201);
    const refused = await client("sessions", "budget", "unbudgeted", "--usd", "1");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error config_invalid: /);
    const unknown = await client("sessions", "reset-run-ceiling", "ghost");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error not_found: /);
  });
});
