/**
 * One attach server with the console, as the browser tests use it: agents from a config file
 * (loaded by the server's own loader), a temporary state directory, an ephemeral port on
 * 127.0.0.1 and, in front of it, a TCP relay the tests can cut to drop the browser's network.
 */
import { execFileSync } from "node:child_process";
import { existsSync, renameSync, rmSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createAttachServer, loadServerConfig, type AttachServer, type ServerConfig } from "../../../src/server/index.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Builds the console bundle when dist/console is missing (CI builds before testing anyway). It is
 * built beside it and renamed into place, so test files starting at once never see half of it.
 */
export function ensureConsoleBuilt(): void {
  if (process.env.AGENT_ADAPTOR_TEST_CONSOLE !== undefined) return;
  const target = join(ROOT, "dist", "console");
  if (existsSync(join(target, "index.html"))) return;
  const staging = `${target}.building-${process.pid}`;
  execFileSync(process.execPath, [join(ROOT, "scripts", "build-console.mjs"), "--out", staging], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  try {
    renameSync(staging, target);
  } catch (error) {
    // Another test file won the race: its bundle is as good as ours.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(target, "index.html"))) throw error;
  }
}

/** An agent as the config file names it. */
export interface AgentConfig {
  driver: string;
  workspace: string;
  options?: Record<string, unknown>;
  defaults?: Record<string, unknown>;
}

/** A TCP relay between the browser and the server whose connections can be cut. */
export interface Relay {
  readonly port: number;
  /** Destroys every open connection and refuses new ones until {@link restore}. */
  drop(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("relay has no TCP address");
  return {
    port: address.port,
    drop() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    async close() {
      down = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

export interface ConsoleFixture {
  readonly server: AttachServer;
  /** The server's own URL (no relay): for the test's direct API calls. */
  readonly apiUrl: string;
  /** The console through the relay, with the token in the fragment. */
  readonly consoleUrl: string;
  readonly relay: Relay;
  readonly stateDir: string;
  /** An authenticated JSON call to the server's API, bypassing the browser. */
  api<T = unknown>(path: string, init?: { method?: string; body?: unknown }): Promise<T>;
  close(): Promise<void>;
}

/**
 * Starts the attach server on port 0 with `agents` (none: the server's offline demo agent), in a
 * fresh state directory — or in `stateDir`, which is then left in place by `close()`.
 */
export async function startConsoleServer(agents?: Record<string, AgentConfig>, options: { stateDir?: string } = {}): Promise<ConsoleFixture> {
  const ownsStateDir = options.stateDir === undefined;
  const stateDir = options.stateDir ?? (await realpath(await mkdtemp(join(tmpdir(), "agent-adaptor-console-e2e-"))));
  const removeStateDir = () => (ownsStateDir ? rm(stateDir, { recursive: true, force: true, maxRetries: 5 }) : Promise.resolve());
  let server: AttachServer | undefined;
  let relay: Relay | undefined;
  try {
    let config: ServerConfig | undefined;
    if (agents !== undefined) {
      const configPath = join(stateDir, "serve.json");
      await writeFile(configPath, JSON.stringify({ agents }, null, 2));
      config = await loadServerConfig(configPath);
    }
    // The bundle the build wrote (the module's own default is beside dist/server, not src/server);
    // AGENT_ADAPTOR_TEST_CONSOLE names another build of it.
    const consoleRoot = process.env.AGENT_ADAPTOR_TEST_CONSOLE ?? join(ROOT, "dist", "console");
    server = await createAttachServer({ ...(config ? { config } : {}), stateDir, port: 0, consoleRoot });
    const { url, consoleUrl } = await server.listen();
    relay = await startRelay(Number(new URL(url).port));
    const relayed = new URL(consoleUrl);
    relayed.port = String(relay.port);
    const token = server.token;
    const started = server;
    const startedRelay = relay;
    return {
      server,
      apiUrl: url,
      consoleUrl: relayed.toString(),
      relay,
      stateDir,
      async api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
        const response = await fetch(`${url}${path}`, {
          method: init.method ?? (init.body === undefined ? "GET" : "POST"),
          headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
        return (text ? JSON.parse(text) : undefined) as T;
      },
      async close() {
        await startedRelay.close();
        await started.close();
        await removeStateDir();
      },
    };
  } catch (error) {
    await relay?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await removeStateDir();
    throw error;
  }
}

/** A fresh browser context (its own storage) with one page on the console. */
export async function openConsole(browser: Browser, fixture: ConsoleFixture): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Waits are bounded by the test's own timeout rather than Playwright's 30 s (a loaded CI box).
  context.setDefaultTimeout(90_000);
  const page = await context.newPage();
  await page.goto(fixture.consoleUrl);
  return { context, page };
}

/** Creates a session through the console for `agent`; resolves with its id once it is selected. */
export async function createSessionInConsole(page: Page, agent: string): Promise<string> {
  const before = new Set(await page.getByTestId("session-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-session-id"))));
  await page.getByTestId("new-session-agent").selectOption(agent);
  await page.getByTestId("create-session").click();
  const detail = page.getByTestId("session-detail");
  await detail.waitFor();
  // The new session is the selected one, and was not listed before.
  for (;;) {
    const id = await detail.getAttribute("data-session-id");
    if (id && !before.has(id)) return id;
    await page.waitForTimeout(50);
  }
}

/** Types `text` into the message box and sends it. */
export async function submitPrompt(page: Page, text: string): Promise<void> {
  await page.getByTestId("prompt-input").fill(text);
  await page.getByTestId("submit-button").click();
}

/** A session event as the SSE route sends it: its seq (the frame id), type and wire JSON. */
export interface StreamedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Reads the session's events from the start over the API (not the browser) until `done` holds for
 * one of them, then disconnects.
 */
export async function readEventsUntil(fixture: ConsoleFixture, sessionId: string, done: (event: StreamedEvent) => boolean): Promise<StreamedEvent[]> {
  const abort = new AbortController();
  const response = await fetch(`${fixture.apiUrl}/api/sessions/${sessionId}/events?after=0`, {
    headers: { authorization: `Bearer ${fixture.server.token}` },
    signal: abort.signal,
  });
  if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
  const events: StreamedEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) => frame.split("\n").filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ""));
        const data = field("data");
        if (data.length === 0) continue;
        const event: StreamedEvent = { seq: Number(field("id")[0]), type: field("event")[0] ?? "message", data: JSON.parse(data.join("\n")) as Record<string, unknown> };
        events.push(event);
        if (done(event)) return events;
      }
    }
  } finally {
    abort.abort();
  }
  throw new Error("the event stream ended before the awaited event");
}
