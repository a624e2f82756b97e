/**
 * `createAttachServer`: the sessions runtime behind an HTTP API and the web console. It owns its
 * stores, agents (and the demo's model server), the sessions it drives and every event stream;
 * `close()` ends them all and leaves no child process behind.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createAdaptorServer, type ServerType } from "@hono/node-server";
import type { Hono } from "hono";
import { ConfigError } from "../errors/index.js";
import { startAgents, type ServedAgents } from "./agents.js";
import { BridgeMounts } from "./bridge-mounts.js";
import { createApp } from "./app.js";
import { parseServerConfig, type ServerConfig } from "./config.js";
import { consoleAssets } from "./console-assets.js";
import { DEFAULT_HOST, DEFAULT_PORT, isLoopbackHost, urlHost } from "./host.js";
import { DEFAULT_IDLE_CLOSE_MS, SessionHub } from "./sessions.js";
import { openStores, type ServerStores } from "./stores.js";
import { resolveToken } from "./token.js";

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface AttachServerOptions {
  /** Agents, store and listen settings; absent = the offline demo configuration (one agent, `demo`). */
  config?: ServerConfig;
  /** Token file, default SQLite file and the demo's workspace. Default `~/.agent-adaptor`. */
  stateDir?: string;
  /** The bearer token to require; else read from (or generated into) `<stateDir>/token`, mode 0600. */
  token?: string;
  /** Default `config.server.host`, else 127.0.0.1. A non-loopback host needs an explicit `token` (`ConfigError` otherwise). */
  host?: string;
  /** Default `config.server.port`, else 7878; 0 = any free port. */
  port?: number;
  /** Largest request body, bytes (larger: 413). Default `config.server.maxBodyBytes`, else 1 MiB. */
  maxBodyBytes?: number;
  /** Origins allowed to call the API from a browser. Default `config.server.cors`, else none (no CORS headers at all). */
  cors?: { origins: string[] };
  /**
   * Close a session after this long without use — no event stream open, no run, no request waiting —
   * so memory stays bounded and another host sharing the store may take it over; the next request
   * opens it again. Ms, default `config.server.idleCloseMs`, else 5 minutes. (An archived session is closed at once.)
   */
  idleCloseMs?: number;
  /** The built console folder (index.html and assets/). Default: the one shipped beside the server's module. */
  consoleRoot?: string;
  /** Operational lines (never the token). */
  log?: (line: string) => void;
}

export interface AttachServer extends AsyncDisposable {
  /** The hono app: embeddable (`app.fetch(request)`) without `listen()`. */
  readonly app: { fetch(request: Request): Response | Promise<Response> };
  /** Bind and serve. `consoleUrl` carries the token in its fragment, which browsers never send. */
  listen(): Promise<{ url: string; consoleUrl: string }>;
  readonly token: string;
  /** Close the listener, every event stream, the sessions (not archived), the agents and the stores. */
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * The built console: beside the compiled server (dist/server → dist/console), or, when the server
 * runs from its sources (src/server), the package's dist/console. Undefined: not built (the
 * console's handler then answers `/` with 503 and how to build it).
 */
function builtConsole(): string | undefined {
  for (const relative of ["../console/", "../../dist/console/"]) {
    const root = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(join(root, "index.html"))) return root;
  }
  return undefined;
}

const DEMO_CONFIG: ServerConfig = { agents: { demo: { driver: "demo" } } };

/**
 * Start the attach server's runtime (stores, agents, sessions) and build its app; `listen()` binds it.
 *
 * @example
 * ```ts
 * await using server = await createAttachServer({ config: await loadServerConfig("serve.toml") });
 * const { consoleUrl } = await server.listen();
 * ```
 */
export async function createAttachServer(options: AttachServerOptions = {}): Promise<AttachServer> {
  const log = options.log ?? (() => undefined);
  const config = parseServerConfig(options.config ?? DEMO_CONFIG);
  const host = options.host ?? config.server?.host ?? DEFAULT_HOST;
  const port = options.port ?? config.server?.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError("port must be an integer from 0 to 65535");
  // Refused before anything binds or is written: a reachable server needs a token chosen on purpose.
  if (!isLoopbackHost(host) && options.token === undefined) {
    throw new ConfigError("a non-loopback host needs an explicit token (the generated one is for this machine only)");
  }
  const maxBodyBytes = options.maxBodyBytes ?? config.server?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0) throw new ConfigError("maxBodyBytes must be a positive integer");
  const idleCloseMs = options.idleCloseMs ?? config.server?.idleCloseMs ?? DEFAULT_IDLE_CLOSE_MS;
  // A timer cannot wait longer than 2^31 - 1 ms (it would fire at once).
  if (!Number.isInteger(idleCloseMs) || idleCloseMs <= 0 || idleCloseMs > 2 ** 31 - 1) throw new ConfigError("idleCloseMs must be a positive integer of at most 2147483647");
  const stateDir = resolve(options.stateDir ?? join(homedir(), ".agent-adaptor"));
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const token = await resolveToken(stateDir, options.token, log);

  const stores = await openStores(config.store, stateDir);
  let agents: ServedAgents;
  try {
    agents = await startAgents(config.agents, stateDir, stores.threads);
  } catch (error) {
    await stores.close();
    throw error;
  }
  const hub = new SessionHub(stores.sessions, agents.byName, { idleCloseMs });
  const mounts = new BridgeMounts();
  const closing = new AbortController();
  let consoleApp: Hono | undefined;
  try {
    const root = options.consoleRoot ?? builtConsole();
    consoleApp = consoleAssets(root !== undefined ? { root } : {});
  } catch (error) {
    await agents.close();
    await stores.close();
    throw error;
  }
  const app = createApp(
    { hub, agents: agents.byName, threads: stores.threads, version: packageVersion(), startedAt: Date.now(), closing: closing.signal },
    {
      token,
      maxBodyBytes,
      corsOrigins: options.cors?.origins ?? config.server?.cors?.origins ?? [],
      log,
      console: consoleApp,
      bridges: { mounts, agUi: config.server?.agUi === true, a2a: config.server?.a2a === true },
    },
  );
  return new RunningServer(app, token, host, port, log, async () => {
    closing.abort();
    await mounts.close();
    await hub.close();
    await agents.close();
    await stores.close();
  });
}

/** A bind failure as the configuration problem it is (the CLI exits 2 on a ConfigError). */
function listenError(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") return new ConfigError(`port ${port} is in use; choose another (0: any free port)`, "config_invalid", { cause: error });
  if (code === "EACCES") return new ConfigError(`not allowed to listen on port ${port}`, "config_invalid", { cause: error });
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return new ConfigError("the host is not an address of this machine", "config_invalid", { cause: error });
  return error;
}

class RunningServer implements AttachServer {
  #http: ServerType | undefined;
  #closed: Promise<void> | undefined;

  constructor(
    readonly app: { fetch(request: Request): Response | Promise<Response> },
    readonly token: string,
    private readonly host: string,
    private readonly port: number,
    private readonly log: (line: string) => void,
    private readonly shutdown: () => Promise<void>,
  ) {}

  async listen(): Promise<{ url: string; consoleUrl: string }> {
    if (this.#closed) throw new ConfigError("the server is closed");
    if (this.#http) throw new ConfigError("the server is listening already");
    const http = createAdaptorServer({ fetch: this.app.fetch, overrideGlobalObjects: false });
    this.#http = http;
    let address: AddressInfo;
    try {
      address = await new Promise<AddressInfo>((done, fail) => {
        http.once("error", fail);
        http.listen(this.port, this.host.replace(/^\[(.*)\]$/, "$1"), () => {
          http.off("error", fail);
          done(http.address() as AddressInfo);
        });
      });
    } catch (error) {
      this.#http = undefined;
      throw listenError(error, this.port);
    }
    const url = `http://${urlHost(address.address)}:${address.port}`;
    this.log(`listening on ${url}`);
    return { url, consoleUrl: `${url}/#token=${encodeURIComponent(this.token)}` };
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    const http = this.#http;
    const stopped = http?.listening
      ? new Promise<void>((done) => http.close(() => done()))
      : Promise.resolve();
    // Event streams end first (their requests then finish), then the runtime under them.
    await this.shutdown();
    if (http && "closeAllConnections" in http) http.closeAllConnections();
    await stopped;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
