/**
 * The optional protocol endpoints, enabled in the config: an agent's AG-UI endpoint runs a turn
 * and streams its AG-UI events; its A2A server answers with its card and speaks JSON-RPC; both
 * need the token, are in the OpenAPI document, and are absent unless enabled.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { fakeConfig, readFrames, startServer, type TestServer } from "./helpers.js";

let s: TestServer;
let plain: TestServer;
beforeAll(async () => {
  plain = await startServer();
  s = await startServer({ config: fakeConfig(plain.workspace, { server: { agUi: true, a2a: true } }) });
});
afterAll(async () => {
  await s?.close();
  await plain?.close();
});

it("AG-UI: a RunAgentInput runs the agent and its AG-UI events stream back", async () => {
  const input = { threadId: "agui-thread", runId: "run-1", messages: [{ id: "u1", role: "user", content: "hello" }], tools: [], context: [], state: {}, forwardedProps: {} };
  const response = await s.api("/api/agents/fake/ag-ui", { json: input, headers: { accept: "text/event-stream" } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
  const frames = await readFrames(response, () => false);
  const types = frames.flatMap((f) => (f.data ? [(JSON.parse(f.data) as { type: string }).type] : []));
  expect(types[0]).toBe("RUN_STARTED");
  expect(types.at(-1)).toBe("RUN_FINISHED");
  expect(frames.some((f) => f.data?.includes('"ok"'))).toBe(true);
  expect((await s.api("/api/agents/fake/ag-ui", { json: input, auth: false })).status).toBe(401);
  expect((await s.api("/api/agents/nobody/ag-ui", { json: input })).status).toBe(404);
  expect((await plain.api("/api/agents/fake/ag-ui", { json: input })).status).toBe(404);
});

it("A2A: the agent's card and its JSON-RPC endpoint", async () => {
  const card = await s.api("/api/a2a/fake/.well-known/agent-card.json");
  expect(card.status).toBe(200);
  const body = (await card.json()) as { name: string; supportedInterfaces: { url: string }[] };
  expect(body.supportedInterfaces[0]!.url).toBe(`${s.url}/api/a2a/fake`);
  const rpc = await s.api("/api/a2a/fake", { json: { jsonrpc: "2.0", id: 1, method: "NoSuchMethod", params: {} } });
  expect(await rpc.json()).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: expect.any(Number) } });
  expect((await s.api("/api/a2a/fake/.well-known/agent-card.json", { auth: false })).status).toBe(401);
  expect((await plain.api("/api/a2a/fake/.well-known/agent-card.json")).status).toBe(404);
});

it("lists the bridge routes in the OpenAPI document only when they are mounted", async () => {
  const paths = async (server: TestServer) => Object.keys(((await (await server.api("/api/openapi.json")).json()) as { paths: object }).paths);
  const bridged = ["/api/agents/{name}/ag-ui", "/api/a2a/{name}", "/api/a2a/{name}/.well-known/agent-card.json"];
  expect(await paths(s)).toEqual(expect.arrayContaining(bridged));
  expect((await paths(plain)).filter((p) => bridged.includes(p))).toEqual([]);
});
