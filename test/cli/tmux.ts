/**
 * A command under a real pseudo-terminal: tmux on a private socket, a fixed window size, the
 * screen read with capture-pane and keys sent with send-keys. Waits poll the screen for what is
 * expected; the deadline only turns a hang into a failure with the screen in the message.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export class TmuxTerminal implements AsyncDisposable {
  readonly #dir: string;
  readonly #socket: string;

  private constructor(dir: string) {
    this.#dir = dir;
    this.#socket = join(dir, "tmux.sock");
  }

  /** Start `argv` in a `width`x`height` terminal; `env` adds variables (`undefined` removes one). */
  static start(argv: string[], options: { width?: number; height?: number; env?: Record<string, string | undefined> } = {}): TmuxTerminal {
    const terminal = new TmuxTerminal(mkdtempSync(join(tmpdir(), "aa-tty-")));
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color" };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    delete env.TMUX;
    // The exit code lands in a file; the pane then waits to be read until the server is killed.
    const script = `${argv.map(quote).join(" ")}; echo $? > ${quote(join(terminal.#dir, "rc"))}; exec sleep 600`;
    terminal.#tmux(["new-session", "-d", "-s", "cli", "-x", String(options.width ?? 100), "-y", String(options.height ?? 30), script], env);
    return terminal;
  }

  #tmux(args: string[], env: NodeJS.ProcessEnv = process.env): string {
    const out = spawnSync("tmux", ["-S", this.#socket, "-f", "/dev/null", ...args], { encoding: "utf8", env });
    if (out.error) throw new Error(`tmux is required for the terminal tests (CI installs it): ${out.error.message}`);
    if (out.status !== 0) throw new Error(`tmux ${args[0]} failed: ${out.stderr}`);
    return out.stdout;
  }

  /** The visible screen, without colours unless `escapes` (then with their SGR sequences). */
  screen(options: { escapes?: boolean } = {}): string {
    return this.#tmux(["capture-pane", "-p", ...(options.escapes ? ["-e"] : []), "-t", "cli"]);
  }

  /** Keys in tmux's names: "Down", "Enter", "C-c", or literal text. */
  keys(...keys: string[]): void {
    this.#tmux(["send-keys", "-t", "cli", ...keys]);
  }

  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${screen}`);
      await sleep(50);
    }
  }

  /** The command's exit code, once it exited. */
  async exitCode(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const text = readFileSync(join(this.#dir, "rc"), "utf8");
        if (text.endsWith("\n")) return Number(text.trim());
      } catch {
        // Not exited yet.
      }
      if (Date.now() > deadline) throw new Error(`the command did not exit:\n${this.screen()}`);
      await sleep(50);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    spawnSync("tmux", ["-S", this.#socket, "kill-server"], { encoding: "utf8" });
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
