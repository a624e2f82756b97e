/** One scripted model server per test, closed after each test. */
import { afterEach } from "vitest";
import { startModelServer, type ModelScript, type ModelServer } from "../../src/testing/model-server/index.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

export async function start(script: ModelScript): Promise<ModelServer> {
  server = await startModelServer({ script });
  return server;
}
