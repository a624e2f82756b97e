/**
 * The CLI under a real pseudo-terminal (tmux): approval prompts answered by keystrokes, the
 * chosen option reaching the run. Runs the built CLI (dist/), like the other CLI tests.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TmuxTerminal } from "./tmux.js";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

describe("run on a terminal", () => {
  it("asks an approval with the offered options; arrow keys and Enter choose deny, and the run sees it", async () => {
    await using term = TmuxTerminal.start([process.execPath, bin, "run", "approve this", "--driver", "fake"], { env: { NO_COLOR: undefined } });
    const prompt = await term.waitFor(/navigate/);
    expect(prompt).toMatch(/Approve command: touch hello\.txt/);
    expect(prompt).toMatch(/❯ Yes, run it\n\s+Yes, and do not ask again for touch\n\s+No, tell the agent what to do instead/);
    term.keys("Down");
    await term.waitFor(/❯ Yes, and do not ask again/);
    term.keys("Down");
    await term.waitFor(/❯ No, tell the agent/);
    term.keys("Enter");
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    // The prompt is replaced by one line with the choice.
    expect(screen).not.toMatch(/navigate/);
    expect(screen).toMatch(/Approve command: touch hello\.txt: No, tell the agent what to do instead\n/);
    expect(screen).toMatch(/approval\.resolved deny \(by stream\)/);
    expect(screen).toMatch(/fake_approval: decision: deny/);
    expect(screen).toMatch(/run\.completed in \d+ ms/);
  });

  it("Enter on the first option allows", async () => {
    await using term = TmuxTerminal.start([process.execPath, bin, "run", "approve this", "--driver", "fake"]);
    await term.waitFor(/❯ Yes, run it/);
    term.keys("Enter");
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toMatch(/fake_approval: decision: allow/);
  });

  it("Ctrl-C at the prompt cancels the run: exit 130", async () => {
    await using term = TmuxTerminal.start([process.execPath, bin, "run", "approve this", "--driver", "fake"]);
    await term.waitFor(/❯ Yes, run it/);
    term.keys("C-c");
    expect(await term.exitCode()).toBe(130);
    expect(term.screen()).not.toMatch(/fake_approval/);
  });

  it("colours on a terminal, none with NO_COLOR", async () => {
    const ESC = "\u001b[";
    {
      await using term = TmuxTerminal.start([process.execPath, bin, "run", "hello", "--driver", "fake"], { env: { NO_COLOR: undefined } });
      expect(await term.exitCode()).toBe(0);
      expect(term.screen({ escapes: true })).toContain(ESC);
    }
    await using term = TmuxTerminal.start([process.execPath, bin, "run", "hello", "--driver", "fake"], { env: { NO_COLOR: "1" } });
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen({ escapes: true });
    expect(screen).toMatch(/run\.completed in \d+ ms/);
    expect(screen).not.toContain(ESC);
  });

  it("shows a spinner with the running command while nothing else prints; Ctrl-C cancels (130) and leaves no spinner behind", async () => {
    await using term = TmuxTerminal.start([process.execPath, bin, "run", "hang on", "--driver", "fake"], { env: { CI: undefined } });
    const screen = await term.waitFor(/running sleep 600/);
    expect(screen).toMatch(/#1 tool\.started \[command\] sleep 600\n\S+ running sleep 600/);
    term.keys("C-c");
    expect(await term.exitCode()).toBe(130);
    const after = term.screen();
    expect(after).toMatch(/error run_cancelled: /);
    expect(after).not.toMatch(/running sleep 600/);
  });

  it("--deny answers without a prompt", async () => {
    await using term = TmuxTerminal.start([process.execPath, bin, "run", "approve this", "--driver", "fake", "--deny"]);
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    expect(screen).not.toMatch(/navigate/);
    expect(screen).toMatch(/fake_approval: decision: deny/);
  });
});
