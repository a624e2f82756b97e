/**
 * The HTTP client of the attach server (`agent-adaptor serve`): where it is, which token to send,
 * and how its answers become exit codes. The token is never printed, not even in errors.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { CliError, EXIT, type ExitCode } from "./exit.js";

export const DEFAULT_URL = "http://127.0.0.1:7878";
export const TOKEN_ENV = "AGENT_ADAPTOR_TOKEN";

/** Flags every client command takes. */
export interface RemoteFlags {
  url?: string;
  tokenEnv?: string;
  stateDir?: string;
  json?: boolean;
}

export function defaultStateDir(): string {
  return join(homedir(), ".agent-adaptor");
}

/** `--token-env NAME`, else `AGENT_ADAPTOR_TOKEN`, else the server's token file in the state directory. */
export async function resolveToken(flags: RemoteFlags, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (flags.tokenEnv !== undefined) {
    const value = env[flags.tokenEnv];
    if (!value) throw new CliError("config_invalid", `--token-env names ${flags.tokenEnv}, which is not set`, EXIT.usage);
    return value;
  }
  if (env[TOKEN_ENV]) return env[TOKEN_ENV];
  try {
    const token = (await readFile(join(flags.stateDir ?? defaultStateDir(), "token"), "utf8")).trim();
    return token || undefined;
  } catch {
    // No token file: the server will answer 401 and the message says how to give one.
    return undefined;
  }
}

const HOW_TO_GIVE_TOKEN = `give the server's token with --token-env NAME, the ${TOKEN_ENV} environment variable, or --state-dir (the server's state directory, which holds its token file)`;

/** 4xx answers about the request the command built are usage errors; a missing or conflicting target is a failure. */
function exitCodeForStatus(status: number): ExitCode {
  if (status === 404 || status === 409 || status >= 500) return EXIT.failed;
  return EXIT.usage;
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown };
}

export class ApiClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;

  constructor(url: string, token: string | undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CliError("config_invalid", "--url is not a URL", EXIT.usage);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new CliError("config_invalid", "--url must be http or https", EXIT.usage);
    this.baseUrl = parsed.origin;
    this.#token = token;
  }

  static async from(flags: RemoteFlags): Promise<ApiClient> {
    return new ApiClient(flags.url ?? DEFAULT_URL, await resolveToken(flags));
  }

  /** A request to `/api<path>`; resolves with the parsed JSON body (undefined for 204). */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /** The raw response of a successful request (errors are thrown as {@link CliError}). */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#token !== undefined) headers.set("authorization", `Bearer ${this.#token}`);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/api${path}`, { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new CliError("server_unreachable", `no server at ${this.baseUrl} (start one with \`agent-adaptor serve\`, or pass --url)`, EXIT.usage);
    }
    if (response.ok) return response;
    throw await errorFrom(response, this.#token !== undefined);
  }
}

async function errorFrom(response: Response, sentToken: boolean): Promise<CliError> {
  if (response.status === 401) {
    const why = sentToken ? "the server refused the token" : "no token was given";
    return new CliError("unauthorized", `${why}; ${HOW_TO_GIVE_TOKEN}`, EXIT.usage);
  }
  let body: ErrorBody = {};
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    // Not the server's error shape (a proxy's page): the status says enough.
  }
  const code = typeof body.error?.code === "string" ? body.error.code : `http_${response.status}`;
  const message = typeof body.error?.message === "string" ? body.error.message : `the server answered ${response.status} ${response.statusText}`;
  return new CliError(code, message, exitCodeForStatus(response.status));
}
