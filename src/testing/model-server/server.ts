/**
 * The scripted model server: one loopback HTTP server speaking the OpenAI Responses, OpenAI
 * Chat Completions, Anthropic Messages and Gemini APIs, answering from a {@link ModelScript}
 * and recording every request.
 */
import { createServer } from "node:http";
import { isIPv4 } from "node:net";
import { ConfigError } from "../../errors/index.js";
import { openAiErrorBody } from "./dialects/codec.js";
import { createRequestHandler } from "./handler.js";
import { cutConnection, writeJson } from "./respond.js";
import { parseModelScript } from "./script.js";
import type { ModelScript } from "./script.js";
import type { CapturedRequest } from "./types.js";

export interface ModelServerOptions {
  /** The scenario; validated here, so JSON parsed from a file may be passed as is. */
  script: ModelScript;
  /** Port to bind; default `0` (any free port). */
  port?: number;
  /** Loopback address to bind: `127.0.0.1` (default), another `127.x.y.z`, `::1` or `localhost`. */
  host?: string;
  /**
   * Keep only the newest this many requests in `requests` (a long-lived server, such as a demo,
   * stays bounded); default: every request.
   */
  keepRequests?: number;
}

export interface ModelServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Every request received so far (the newest `keepRequests` when set), in arrival order (a live array). */
  readonly requests: CapturedRequest[];
  /** Indexes of script turns that have not answered any request yet. */
  unusedTurns(): number[];
  /** Stops the server, dropping open connections. Safe to call twice. */
  close(): Promise<void>;
}

function loopbackHost(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost") return "127.0.0.1";
  if ((isIPv4(bare) && bare.startsWith("127.")) || bare === "::1") return bare;
  throw new ConfigError(`the model server binds loopback addresses only; refusing host "${host}"`);
}

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`invalid port: ${port}`);
  return port;
}

/**
 * Starts a scripted model server on a loopback address. Rejects with a `ConfigError`
 * (`config_invalid`) for an invalid script, a non-loopback host or a bad port.
 *
 * @example
 * const server = await startModelServer({ script: { turns: [{ reply: { text: "hi" } }] } });
 * // point the CLI at server.url, run it, then:
 * expect(lastUserText(server.requests[0]!)).toContain("hello");
 * await server.close();
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const host = loopbackHost(options.host ?? "127.0.0.1");
  const port = checkPort(options.port ?? 0);
  const script = parseModelScript(options.script);
  const keep = options.keepRequests;
  if (keep !== undefined && (!Number.isInteger(keep) || keep < 1)) throw new ConfigError(`invalid keepRequests: ${keep}`);
  const requests: CapturedRequest[] = [];
  const closing = new AbortController();
  const handler = createRequestHandler(script, requests, closing.signal, keep);

  const server = createServer((req, res) => {
    handler.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) writeJson(res, 500, openAiErrorBody(500, `scripted model server failure: ${String(error)}`));
      else void cutConnection(res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`,
    requests,
    unusedTurns: () => handler.unusedTurns(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
