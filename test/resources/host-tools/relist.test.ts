/**
 * Binding a run whose services change an endpoint's tool list waits until the provider has listed
 * the tools again after the announcement, so the run's prompt never reaches the model before the
 * provider offers the services. The wait is bounded and ends with the run or the endpoint; a
 * session that once let the bound pass without re-listing is not waited for again.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { HostToolsEndpoint } from "../../../src/index.js";
import { resolveHostTools } from "../../../src/agent/host-tool-schemas.js";
import { RELIST_WAIT_MS } from "../../../src/resources/host-tools/endpoint.js";
import { LoopbackServer } from "../../../src/resources/host-tools/server.js";
import type { RunBinding } from "../../../src/resources/host-tools/served-tool.js";

const servers: LoopbackServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A bound far beyond any test's timeout: where it is used, only a re-list (or the run, or the endpoint) can end the wait. */
const NEVER = 10 * 60_000;

function serverWith(relistWaitMs?: number): LoopbackServer {
  const server = new LoopbackServer({
    serverName: "host",
    tools: resolveHostTools([{ name: "echo", inputSchema: { type: "object" }, handler: (args: unknown) => args }], "tools"),
    redact: (text) => text,
    addSecret: () => undefined,
    forgetSecret: () => undefined,
    ...(relistWaitMs !== undefined ? { relistWaitMs } : {}),
  });
  servers.push(server);
  return server;
}

function runWithService(runId: string): RunBinding & { end(): void } {
  const controller = new AbortController();
  const services = resolveHostTools([{ name: "svc", inputSchema: { type: "object" }, handler: () => "s" }], "services");
  return { runId, services, signal: controller.signal, end: () => controller.abort() };
}

/** A client of `view`; resolves once its standalone SSE stream (which announcements travel on) is open. */
async function streamingClient(view: HostToolsEndpoint, onListChanged: () => void): Promise<Client> {
  let streamOpen!: () => void;
  const streamOpened = new Promise<void>((resolve) => (streamOpen = resolve));
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && response.ok) streamOpen();
    return response;
  };
  const client = new Client({ name: "test", version: "0" });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => onListChanged());
  await client.connect(new StreamableHTTPClientTransport(new URL(view.http.url), { requestInit: { headers: view.http.headers }, fetch: watched }));
  clients.push(client);
  await streamOpened;
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

/** `promise` with a flag telling whether it has settled yet. */
function tracked(promise: Promise<void>): { settled: () => boolean; promise: Promise<void> } {
  let done = false;
  const watched = promise.then(() => void (done = true));
  return { settled: () => done, promise: watched };
}

describe("binding a run that changes the tool list", () => {
  it("resolves only after a session that re-lists on the announcement has listed the run's services", async () => {
    const { endpoint, view } = await serverWith(NEVER).open();
    let announced!: () => void;
    const announcement = new Promise<void>((resolve) => (announced = resolve));
    const client = await streamingClient(view, () => announced());
    expect(await names(client)).toEqual(["echo"]);

    const bind = tracked(endpoint.bind(runWithService("run_1")));
    await announcement;
    // Other traffic of the session is not a re-list: the binding still waits.
    await client.ping();
    await client.callTool({ name: "echo", arguments: {} });
    expect(bind.settled()).toBe(false);
    expect(await names(client)).toEqual(["echo", "svc"]);
    await bind.promise;
    expect(bind.settled()).toBe(true);
  });

  it("waits for every session of the endpoint that listed before", async () => {
    const { endpoint, view } = await serverWith(NEVER).open();
    const heard: string[] = [];
    const first = await streamingClient(view, () => heard.push("first"));
    const second = await streamingClient(view, () => heard.push("second"));
    await names(first);
    await names(second);

    const bind = tracked(endpoint.bind(runWithService("run_2")));
    expect(await names(first)).toEqual(["echo", "svc"]);
    await second.ping();
    expect(bind.settled()).toBe(false);
    expect(await names(second)).toEqual(["echo", "svc"]);
    await bind.promise;
  });

  it("ends at the bound when a session never re-lists; the run is bound all the same", async () => {
    const { endpoint, view } = await serverWith(50).open();
    let announced!: () => void;
    const announcement = new Promise<void>((resolve) => (announced = resolve));
    const client = await streamingClient(view, () => announced());
    await names(client);
    // The client hears the announcement and lists nothing: only the bound ends the wait.
    await endpoint.bind(runWithService("run_3"));
    await announcement;
    expect(endpoint.boundRunId).toBe("run_3");
    expect(await names(client)).toEqual(["echo", "svc"]);
  });

  it("ends when the run ends or the endpoint closes, whatever the bound", async () => {
    const server = serverWith(NEVER);
    const a = await server.open();
    const clientA = await streamingClient(a.view, () => undefined);
    await names(clientA);
    const run = runWithService("run_4");
    const bindA = tracked(a.endpoint.bind(run));
    await clientA.ping();
    expect(bindA.settled()).toBe(false);
    run.end();
    await bindA.promise;

    const b = await server.open();
    const clientB = await streamingClient(b.view, () => undefined);
    await names(clientB);
    const bindB = tracked(b.endpoint.bind(runWithService("run_5")));
    await clientB.ping();
    expect(bindB.settled()).toBe(false);
    await b.view.close();
    await bindB.promise;
  });

  it("has nothing to wait for without a session, or with a session that has not listed yet", async () => {
    const server = serverWith(NEVER);
    const lone = await server.open();
    await lone.endpoint.bind(runWithService("run_6"));
    expect(lone.endpoint.boundRunId).toBe("run_6");

    const fresh = await server.open();
    const client = await streamingClient(fresh.view, () => undefined);
    await fresh.endpoint.bind(runWithService("run_7"));
    expect(await names(client)).toEqual(["echo", "svc"]);
  });

  it("does not wait for a binding that leaves the list as it was", async () => {
    const { endpoint, view } = await serverWith(NEVER).open();
    const client = await streamingClient(view, () => undefined);
    await names(client);
    await endpoint.bind({ runId: "run_8", services: [], signal: new AbortController().signal });
    expect(endpoint.boundRunId).toBe("run_8");
  });
});

describe("a session that does not re-list on announcements", () => {
  /** Resolves at the next announcement `client`'s session hears. */
  function announcements() {
    let next: (() => void) | undefined;
    return {
      heard: () => next?.(),
      next: () => new Promise<void>((resolve) => (next = resolve)),
    };
  }

  // Only setTimeout is faked: the bound is the only timer the endpoint starts, and it passes when the test says.
  const fakeBound = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });

  it("is not waited for once it let an announcement go unanswered until the bound passed", async () => {
    const { endpoint, view } = await serverWith().open();
    const silent = announcements();
    const client = await streamingClient(view, () => silent.heard());
    await names(client);
    fakeBound();

    const heard = silent.next();
    const first = tracked(endpoint.bind(runWithService("run_9")));
    await heard;
    await client.ping();
    expect(first.settled()).toBe(false);
    vi.advanceTimersByTime(RELIST_WAIT_MS);
    await first.promise;
    endpoint.unbind("run_9");

    // The same change again: nothing is waited for, so the binding settles with no time passing.
    const heardAgain = silent.next();
    const second = tracked(endpoint.bind(runWithService("run_10")));
    await heardAgain;
    await client.ping();
    expect(second.settled()).toBe(true);
    expect(endpoint.boundRunId).toBe("run_10");
  });

  it("leaves a session that re-lists waited for, beside one that does not", async () => {
    const { endpoint, view } = await serverWith().open();
    const silent = announcements();
    const relisting = announcements();
    const quiet = await streamingClient(view, () => silent.heard());
    const lister = await streamingClient(view, () => relisting.heard());
    await names(quiet);
    await names(lister);
    fakeBound();

    let heard = Promise.all([silent.next(), relisting.next()]);
    const first = tracked(endpoint.bind(runWithService("run_11")));
    await heard;
    expect(await names(lister)).toEqual(["echo", "svc"]);
    await quiet.ping();
    expect(first.settled()).toBe(false);
    vi.advanceTimersByTime(RELIST_WAIT_MS);
    await first.promise;
    heard = Promise.all([silent.next(), relisting.next()]);
    endpoint.unbind("run_11");
    await heard;

    // The quiet session is no longer waited for; the one that re-listed still is.
    heard = Promise.all([silent.next(), relisting.next()]);
    const second = tracked(endpoint.bind(runWithService("run_12")));
    await heard;
    await quiet.ping();
    await lister.ping();
    expect(second.settled()).toBe(false);
    expect(await names(lister)).toEqual(["echo", "svc"]);
    // Settled by that re-list alone: no time passed for the quiet session.
    await lister.ping();
    expect(second.settled()).toBe(true);
  });
});
