/**
 * The real attach server out of process: `serve` of the built CLI as a child (port 0, `--json`),
 * and the temporary directory it serves from, with a config file of one fake-driver agent.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll } from "vitest";
import { bin } from "./run-cli.js";

export interface ServeChild {
  child: ChildProcess;
  url: string;
  consoleUrl: string;
  /** The whole JSON line serve printed. */
  printed: Record<string, unknown>;
  stdoutLine: string;
  stderr(): string;
}

/**
 * `serve --port 0 --json ...args`, once it has printed its address; rejects with its stderr when it
 * exits first. `env` adds variables; AGENT_ADAPTOR_TOKEN is never inherited. `detached`: the child
 * leads its own process group, so a test can kill the whole host at once.
 */
export async function startServe(args: readonly string[], env: Record<string, string> = {}, options: { detached?: boolean } = {}): Promise<ServeChild> {
  const childEnv = { ...process.env };
  delete childEnv.AGENT_ADAPTOR_TOKEN;
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--json", ...args], { stdio: ["ignore", "pipe", "pipe"], env: childEnv, detached: options.detached === true });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const first = await Promise.race([
    once(createInterface({ input: child.stdout! }), "line").then(([line]) => line as string),
    once(child, "exit").then(([code]) => {
      throw new Error(`serve exited ${code}: ${stderr}`);
    }),
  ]);
  const printed = JSON.parse(first) as { url: string; consoleUrl: string };
  return { child, url: printed.url, consoleUrl: printed.consoleUrl, printed, stdoutLine: first, stderr: () => stderr };
}

export interface ServeDir {
  /** The temporary directory, also the agent's workspace. */
  readonly dir: string;
  /** `<dir>/state`, for `--state-dir`. */
  readonly stateDir: string;
  /** The config file, for `--config`: agent `worker`, the fake driver with `fakeOptions`. */
  readonly configFile: string;
}

/** Makes the directory and its config file before the file's tests and removes it after them. */
export function useServeDir(prefix: string, fakeOptions: Record<string, unknown>): ServeDir {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    const config = { agents: { worker: { driver: "fake", workspace: dir, options: fakeOptions } } };
    await writeFile(join(dir, "agents.json"), JSON.stringify(config));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const made = (): string => {
    if (dir === undefined) throw new Error("the serve directory is made in beforeAll");
    return dir;
  };
  return {
    get dir() {
      return made();
    },
    get stateDir() {
      return join(made(), "state");
    },
    get configFile() {
      return join(made(), "agents.json");
    },
  };
}
