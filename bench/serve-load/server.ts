/**
 * The attach server under load, in a process of its own so its memory is measured apart from the
 * viewers': `node server.js <config.json> <stateDir>` with the token in SERVE_LOAD_TOKEN. Prints
 * one JSON line `{ url }` once listening, then `{ at, rss, heapUsed, collected }` every
 * SERVE_LOAD_SAMPLE_MS (default 500), and `{ closed: true }` after a clean close when stdin ends or on SIGTERM.
 */
import { readFileSync } from "node:fs";

import { createAttachServer, parseServerConfig } from "../../src/server/index.js";

const [configPath, stateDir] = process.argv.slice(2);
const token = process.env.SERVE_LOAD_TOKEN;
if (configPath === undefined || stateDir === undefined || !token) {
  process.stderr.write("usage: SERVE_LOAD_TOKEN=... node server.js <config.json> <stateDir>\n");
  process.exit(2);
}
const sampleMs = Number(process.env.SERVE_LOAD_SAMPLE_MS ?? 500);

const line = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

const config = parseServerConfig(JSON.parse(readFileSync(configPath, "utf8")) as unknown);
const server = await createAttachServer({ config, stateDir, token, host: "127.0.0.1", port: 0 });
const { url } = await server.listen();
line({ url });

// With --expose-gc, every tenth sample is taken right after a full collection: the live heap,
// which tells retention from garbage not yet collected.
const gc = (globalThis as { gc?: () => void }).gc;
let samples = 0;
const sample = (): void => {
  const collected = gc !== undefined && samples++ % 10 === 0;
  if (collected) gc();
  const { rss, heapUsed } = process.memoryUsage();
  line({ at: Date.now(), rss, heapUsed, collected });
};
sample();
const sampler = setInterval(sample, sampleMs);

let closing: Promise<void> | undefined;
const close = (): Promise<void> =>
  (closing ??= (async () => {
    clearInterval(sampler);
    await server.close();
    line({ closed: true });
  })());
process.once("SIGTERM", () => void close());
process.stdin.on("end", () => void close());
process.stdin.resume();
