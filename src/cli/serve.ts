/**
 * `serve`: the attach server (API, console, event streams) until SIGINT or SIGTERM, then a clean
 * close — listener, streams, sessions, agents and every child process. The console URL carries
 * the token in its fragment, which browsers never send to the server.
 */
import { CliError, EXIT, type ExitCode } from "./exit.js";
import { TOKEN_ENV } from "./client.js";
import type { Interrupt } from "./signals.js";

export interface ServeFlags {
  config?: string;
  host?: string;
  port?: number;
  stateDir?: string;
  tokenEnv?: string;
  json?: boolean;
}

/** `--token-env NAME`, else `AGENT_ADAPTOR_TOKEN` (the variable clients read too), else the server's token file. */
function givenToken(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flags.tokenEnv !== undefined) {
    const value = env[flags.tokenEnv];
    if (!value) throw new CliError("config_invalid", `--token-env names ${flags.tokenEnv}, which is not set`, EXIT.usage);
    return value;
  }
  return env[TOKEN_ENV] || undefined;
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
    if (flags.json) process.stdout.write(`${JSON.stringify({ url, consoleUrl })}\n`);
    else process.stdout.write(`agent-adaptor serve: ${url}\nopen the console: ${consoleUrl}\n(Ctrl-C stops the server)\n`);
    await new Promise<void>((resolve) => {
      if (interrupt.signal.aborted) resolve();
      else interrupt.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return EXIT.ok;
  } finally {
    await server.close();
  }
}
