/**
 * `serve`: the attach server (API, console, event streams) until SIGINT or SIGTERM, then a clean
 * close — listener, streams, sessions, agents and every child process. The console URL carries
 * the token in its fragment, which browsers never send to the server; it is printed only where a
 * person reads it (see `showsToken`), since a service's stdout is its log.
 */
import { join, resolve } from "node:path";
import { CliError, EXIT, type ExitCode } from "./exit.js";
import { TOKEN_ENV, defaultStateDir } from "./client.js";
import type { Interrupt } from "./signals.js";

export interface ServeFlags {
  config?: string;
  host?: string;
  port?: number;
  stateDir?: string;
  tokenEnv?: string;
  printToken?: boolean;
  json?: boolean;
}

/** Where the token the server requires can be read: the variable it was given in, or its token file. */
type TokenSource = { tokenEnv: string } | { tokenFile: string };

/** `--token-env NAME`, else `AGENT_ADAPTOR_TOKEN` (the variable clients read too), else the server's token file. */
function givenToken(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flags.tokenEnv !== undefined) {
    const value = env[flags.tokenEnv];
    if (!value) throw new CliError("config_invalid", `--token-env names ${flags.tokenEnv}, which is not set`, EXIT.usage);
    return value;
  }
  return env[TOKEN_ENV] || undefined;
}

function tokenSource(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): TokenSource {
  if (flags.tokenEnv !== undefined) return { tokenEnv: flags.tokenEnv };
  if (env[TOKEN_ENV]) return { tokenEnv: TOKEN_ENV };
  return { tokenFile: join(resolve(flags.stateDir ?? defaultStateDir()), "token") };
}

/**
 * The token reaches stdout only where a person reads it: on a terminal, or when asked for with
 * `--print-token`. `--json` is read by programs and kept in logs, so it carries it only when asked.
 */
function showsToken(flags: ServeFlags, stdout: NodeJS.WriteStream = process.stdout): boolean {
  return flags.printToken === true || (!flags.json && stdout.isTTY === true);
}

/** What `serve` prints once it listens: a JSON line, or lines for a person. */
function listeningText(flags: ServeFlags, url: string, tokenUrl: string, source: TokenSource, shown: boolean): string {
  const consoleUrl = shown ? tokenUrl : `${url}/`;
  if (flags.json) return `${JSON.stringify({ url, consoleUrl, ...source })}\n`;
  const lines = [`agent-adaptor serve: ${url}`];
  if (shown) lines.push(`open the console: ${consoleUrl}`);
  else {
    const where = "tokenFile" in source ? `the content of ${source.tokenFile}` : `the value of ${source.tokenEnv}`;
    lines.push(`open the console: ${url}/#token=<token>`, `  <token>: ${where} (the token is printed only on a terminal, or with --print-token)`);
  }
  lines.push("(Ctrl-C stops the server)");
  return `${lines.join("\n")}\n`;
}

export async function serveCommand(flags: ServeFlags, interrupt: Interrupt): Promise<ExitCode> {
  // Loaded on demand: the other commands never pay for the server's modules.
  const { createAttachServer, loadServerConfig } = await import("../server/index.js");
  const config = flags.config !== undefined ? await loadServerConfig(flags.config) : undefined;
  const token = givenToken(flags);
  // The file's [server] settings apply where a flag gives none (the server merges them).
  const { host, port } = flags;
  const server = await createAttachServer({
    ...(config ? { config } : {}),
    ...(flags.stateDir !== undefined ? { stateDir: flags.stateDir } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(host !== undefined ? { host } : {}),
    ...(port !== undefined ? { port } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  try {
    if (interrupt.signal.aborted) return EXIT.ok;
    const { url, consoleUrl } = await server.listen();
    process.stdout.write(listeningText(flags, url, consoleUrl, tokenSource(flags), showsToken(flags)));
    await new Promise<void>((resolve) => {
      if (interrupt.signal.aborted) resolve();
      else interrupt.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return EXIT.ok;
  } finally {
    await server.close();
  }
}
