/**
 * `agent-adaptor testing model-server --script file.json [--port N]`: runs the scripted model
 * server until SIGINT/SIGTERM. The first stdout line is the base URL; nothing else is written
 * to stdout. Captured requests stay readable over HTTP at `GET /__model-server/requests`.
 */
import { loadModelScript } from "./script.js";
import { startModelServer } from "./server.js";

export interface ModelServerCommandArgs {
  /** Path of the JSON script. */
  script: string;
  port?: number;
  host?: string;
}

/** Streams and stop signal, replaceable for tests; defaults are the process's own. */
export interface ModelServerCommandIo {
  stdout?: { write(text: string): unknown };
  /** Stops the server like SIGINT does. */
  signal?: AbortSignal;
}

/** Starts the server, prints its URL, and resolves once it was stopped and closed. */
export async function runModelServerCommand(argv: ModelServerCommandArgs, io: ModelServerCommandIo = {}): Promise<void> {
  const script = await loadModelScript(argv.script);
  const server = await startModelServer({
    script,
    ...(argv.port === undefined ? {} : { port: argv.port }),
    ...(argv.host === undefined ? {} : { host: argv.host }),
  });
  (io.stdout ?? process.stdout).write(`${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      io.signal?.removeEventListener("abort", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener("abort", stop, { once: true });
  });
  await server.close();
}
