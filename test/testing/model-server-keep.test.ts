/**
 * `keepRequests`: a long-lived model server (the attach server's demo) keeps only its newest
 * requests, while each request's `index` still counts every arrival.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/index.js";
import { startModelServer, type ModelServer } from "../../src/testing/model-server/index.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const script = { turns: [{ reply: { text: "ok" }, repeat: true }] };

async function ask(s: ModelServer, text: string): Promise<void> {
  const res = await fetch(`${s.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }) });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe("model server keepRequests", () => {
  it("keeps the newest requests only, numbered by arrival", async () => {
    server = await startModelServer({ script, keepRequests: 3 });
    for (let i = 0; i < 7; i++) await ask(server, `prompt ${i}`);
    expect(server.requests.map((r) => r.index)).toEqual([4, 5, 6]);
  });

  it("keeps every request by default", async () => {
    server = await startModelServer({ script });
    for (let i = 0; i < 5; i++) await ask(server, `prompt ${i}`);
    expect(server.requests.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it("refuses a keepRequests below one", async () => {
    await expect(startModelServer({ script, keepRequests: 0 })).rejects.toBeInstanceOf(ConfigError);
  });
});
