/**
 * The attach server as the API tests use it: a fake-driver agent whose scripts are chosen by the
 * prompt, a temporary state directory, an ephemeral port on 127.0.0.1, and a small client.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAttachServer, type AttachServer, type AttachServerOptions, type ServerConfig } from "../../../src/server/index.js";

const ALLOW_DENY = [
  { id: "allow", label: "Allow", kind: "allow_once" },
  { id: "deny", label: "Deny", kind: "deny" },
];

/** Scripts of the fake agent, by a word in the prompt. */
export const FAKE_SCRIPTS = [
  {
    promptContains: "approve",
    script: {
      steps: [
        { markDelivered: true },
        { approve: { requestId: "appr_1", kind: "command", summary: "run ls", options: ALLOW_DENY } },
        { emit: { type: "message.completed", itemId: "m1", text: "after the approval" } },
      ],
    },
  },
  {
    promptContains: "ask",
    script: {
      steps: [
        { markDelivered: true },
        { ask: { requestId: "q_1", questions: [{ id: "colour", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] }] } },
        { emit: { type: "message.completed", itemId: "m1", text: "after the question" } },
      ],
    },
  },
  { promptContains: "many", script: { steps: [{ markDelivered: true }, { deltas: { count: 1000, text: "x", itemId: "m1" } }] } },
  { promptContains: "wait", script: { steps: [{ markDelivered: true }, { waitForAbort: true }] } },
];

export function fakeConfig(workspace: string, extra: Partial<ServerConfig> = {}): ServerConfig {
  return { agents: { fake: { driver: "fake", workspace, options: { scripts: FAKE_SCRIPTS } } }, ...extra };
}

export interface TestServer {
  server: AttachServer;
  url: string;
  token: string;
  stateDir: string;
  workspace: string;
  logs: string[];
  /** fetch under the server's URL with the token (unless `auth: false` or another header is given). */
  api(path: string, init?: RequestInit & { auth?: boolean; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** A temporary directory removed by `close()` of the server using it. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startServer(options: Partial<AttachServerOptions> & { stateDir?: string } = {}): Promise<TestServer> {
  const root = tempDir("aa-server-");
  const stateDir = options.stateDir ?? join(root, "state");
  const workspace = join(root, "workspace");
  mkdirSync(workspace, { recursive: true });
  const logs: string[] = [];
  const server = await createAttachServer({ config: fakeConfig(workspace), port: 0, log: (line) => logs.push(line), ...options, stateDir });
  let url: string;
  try {
    url = (await server.listen()).url;
  } catch (error) {
    await server.close();
    throw error;
  }
  const api = (path: string, init: RequestInit & { auth?: boolean; json?: unknown } = {}): Promise<Response> => {
    const { auth = true, json, headers, ...rest } = init;
    const merged = new Headers(headers);
    if (auth && !merged.has("authorization")) merged.set("authorization", `Bearer ${server.token}`);
    if (json !== undefined) merged.set("content-type", "application/json");
    return fetch(`${url}${path}`, { ...rest, headers: merged, ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? "POST" } : {}) });
  };
  return {
    server,
    url,
    token: server.token,
    stateDir,
    workspace,
    logs,
    api,
    close: async () => {
      await server.close();
      if (options.stateDir === undefined) rmSync(root, { recursive: true, force: true });
      else rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Poll `check` until it returns a value (no timing assertion: the test's own timeout bounds it). */
export async function until<T>(check: () => Promise<T | undefined>, everyMs = 20): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** One SSE frame as read. */
export interface Frame {
  id?: number;
  event?: string;
  data?: string;
}

/** Read frames from an event-stream response until `stop(frames)` says so; then abort the request. */
export async function readFrames(response: Response, stop: (frames: Frame[]) => boolean, abort?: AbortController): Promise<Frame[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Frame[] = [];
  let buffer = "";
  try {
    while (!stop(frames)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: Frame = {};
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) frame.id = Number(line.slice(4));
          else if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("data: ")) frame.data = (frame.data === undefined ? "" : `${frame.data}\n`) + line.slice(6);
        }
        if (frame.id !== undefined || frame.event !== undefined || frame.data !== undefined) frames.push(frame);
        if (stop(frames)) break;
      }
    }
  } finally {
    abort?.abort();
    await reader.cancel().catch(() => undefined);
  }
  return frames;
}
