/**
 * An MCP stdio client transport over the library's own process handling: the server runs as the
 * leader of its own process group with a scrubbed environment (plus the server's configured
 * `env`), its stderr kept as a redacted tail, and `close()` stops the whole group and reaps it —
 * no server (nor anything it started) outlives the run.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readJsonLines, spawnProcess, writeJsonLine, type ProcessHandle } from "../../../process/index.js";
import type { Redactor } from "../../../redact/redact.js";

export interface StdioServerLaunch {
  command: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd: string;
  redactor: Redactor;
  /** Told of the server's process once it runs (the driver counts the processes it owns). */
  onSpawn?: (child: ProcessHandle) => void;
}

export class ProcessStdioTransport implements Transport {
  readonly #launch: StdioServerLaunch;
  #child: ProcessHandle | undefined;
  #closed = false;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(launch: StdioServerLaunch) {
    this.#launch = launch;
  }

  /** The server's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    const l = this.#launch;
    const child = await spawnProcess({ command: l.command, args: l.args ?? [], cwd: l.cwd, env: l.env ?? {}, redactor: l.redactor });
    this.#child = child;
    l.onSpawn?.(child);
    void this.#read(child);
    void child.exited.then(() => this.#finish());
  }

  async #read(child: ProcessHandle): Promise<void> {
    try {
      for await (const line of readJsonLines(child.stdout)) {
        if (line.kind === "json") this.onmessage?.(line.value as JSONRPCMessage);
        else this.onerror?.(line.error);
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#closed) throw new Error("the MCP server is not running");
    await writeJsonLine(child.stdin, message);
  }

  async close(): Promise<void> {
    await this.#child?.stop();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
