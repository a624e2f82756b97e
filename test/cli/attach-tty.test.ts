/**
 * `attach` on a real pseudo-terminal (tmux) against a stand-in of the attach server: a pending
 * approval becomes a prompt answered by keystrokes and sent over HTTP; an answer from elsewhere
 * withdraws it; Ctrl-C detaches (exit 0) without interrupting the session.
 */
import { describe, expect, it } from "vitest";
import { bin } from "./run-cli.js";
import { useStubServer } from "./stub-server.js";
import { TmuxTerminal } from "./tmux.js";

const fx = useStubServer("tty-token");

const OPTIONS = [
  { id: "once", label: "Allow once", kind: "allow_once" },
  { id: "always", label: "Allow for this session", kind: "allow_always" },
  { id: "no", label: "Deny", kind: "deny" },
];

/** A session whose run waits on an approval. */
function waitingSession(id: string): void {
  fx.stub.addSession(id).state = "running";
  fx.stub.push(id, { type: "run.started", runId: "run_1", seq: 0, at: 0, driver: "fake" });
  fx.stub.push(id, { type: "approval.requested", runId: "run_1", seq: 1, at: 0, requestId: "req_1", kind: "command", summary: "rm -rf build", options: OPTIONS });
}

function attach(id: string): TmuxTerminal {
  return TmuxTerminal.start([process.execPath, bin, "attach", id, "--url", fx.stub.url, "--state-dir", fx.stateDir], { env: { AGENT_ADAPTOR_TOKEN: fx.stub.token } });
}

async function until(condition: () => boolean, term: TmuxTerminal): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`the condition never held:\n${term.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("tables on a terminal", () => {
  it("sessions list: coloured, and still aligned as the screen shows it", async () => {
    fx.stub.addSession("tbl-short");
    fx.stub.addSession("tbl-a-much-longer-id").state = "running";
    await using term = TmuxTerminal.start([process.execPath, bin, "sessions", "list", "--url", fx.stub.url, "--state-dir", fx.stateDir], {
      width: 160,
      env: { AGENT_ADAPTOR_TOKEN: fx.stub.token, NO_COLOR: undefined },
    });
    expect(await term.exitCode()).toBe(0);
    expect(term.screen({ escapes: true })).toContain("\u001b[");
    const lines = term.screen().split("\n").filter((line) => /^(id|tbl-)/.test(line));
    expect(lines).toHaveLength(3);
    const stateColumn = lines[0]!.indexOf("state");
    expect(lines.slice(1).map((line) => line.slice(stateColumn).split(/\s+/)[0])).toEqual(["running", "idle"]);
  });
});

describe("attach on a terminal", () => {
  it("prompts for a pending approval; the chosen option is answered over HTTP", async () => {
    waitingSession("a1");
    await using term = attach("a1");
    const screen = await term.waitFor(/navigate/);
    expect(screen).toMatch(/Approve command: rm -rf build/);
    term.keys("Down");
    await term.waitFor(/❯ Allow for this session/);
    term.keys("Enter");
    await until(() => fx.stub.sessions.get("a1")!.answers.length === 1, term);
    expect(fx.stub.sessions.get("a1")!.answers).toEqual([{ requestId: "req_1", body: { optionId: "always" } }]);
    fx.stub.push("a1", { type: "approval.resolved", runId: "run_1", seq: 2, at: 0, requestId: "req_1", decision: { decision: "allow", scope: "session", optionId: "always" }, by: "stream" });
    fx.stub.push("a1", { type: "session.state", state: "archived" });
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toMatch(/approval\.resolved allow \(by stream\)/);
  });

  it("an answer given elsewhere withdraws the prompt", async () => {
    waitingSession("a2");
    await using term = attach("a2");
    await term.waitFor(/navigate/);
    fx.stub.push("a2", { type: "approval.resolved", runId: "run_1", seq: 2, at: 0, requestId: "req_1", decision: { decision: "deny" }, by: "stream" });
    await term.waitFor(/approval\.resolved deny/);
    fx.stub.push("a2", { type: "session.state", state: "archived" });
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).not.toMatch(/navigate/);
    expect(fx.stub.sessions.get("a2")!.answers).toEqual([]);
  });

  it("Ctrl-C detaches with exit 0 and does not interrupt the session, at the prompt or while following", async () => {
    waitingSession("a3");
    {
      await using term = attach("a3");
      await term.waitFor(/navigate/);
      term.keys("C-c");
      expect(await term.exitCode()).toBe(0);
    }
    fx.stub.addSession("a4");
    fx.stub.push("a4", { type: "session.state", state: "idle" });
    await using term = attach("a4");
    await term.waitFor(/session\.state idle/);
    term.keys("C-c");
    expect(await term.exitCode()).toBe(0);
    expect(fx.stub.interrupts).toEqual([]);
    expect(fx.stub.sessions.get("a3")!.answers).toEqual([]);
  });
});
