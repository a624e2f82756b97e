import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";

import { AdaptorError, ProtocolError } from "../../src/errors/index.js";
import { JsonRpcError, JsonRpcErrorCode, JsonRpcPeer, spawnProcess, type JsonRpcPeerOptions, type ProcessHandle } from "../../src/process/index.js";
import { ECHO_SERVER } from "./helpers.js";

const started: ProcessHandle[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.stop({ graceMs: 500 })));
});

async function connect(options: Partial<JsonRpcPeerOptions> & { bare?: boolean } = {}): Promise<{ child: ProcessHandle; peer: JsonRpcPeer; errors: ProtocolError[] }> {
  const child = await spawnProcess({ command: process.execPath, args: ["-e", ECHO_SERVER, ...(options.bare ? ["bare"] : [])] });
  started.push(child);
  const errors: ProtocolError[] = [];
  const peer = new JsonRpcPeer({ input: child.stdout, output: child.stdin, onProtocolError: (e) => errors.push(e), ...options });
  return { child, peer, errors };
}

describe("JsonRpcPeer over a real child", () => {
  it("correlates concurrent requests with their responses", async () => {
    const { peer } = await connect();
    const results = await Promise.all([1, 2, 3].map((n) => peer.request<{ params: unknown; sawJsonrpc: unknown }>("echo", { n })));
    expect(results.map((r) => r.params)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(results[0]!.sawJsonrpc).toBe("2.0");
    expect(peer.pendingCount).toBe(0);
    await peer.close();
  });

  it("omits the jsonrpc field on request and accepts peers that omit it", async () => {
    const { peer, errors } = await connect({ bare: true, jsonrpcField: false });
    expect(await peer.request("echo", [1])).toEqual({ params: [1], sawJsonrpc: null });
    await expect(peer.request("fail")).rejects.toBeInstanceOf(JsonRpcError);
    expect(errors).toEqual([]);
    await peer.close();
  });

  it("turns an error response into a typed JsonRpcError", async () => {
    const { peer } = await connect();
    const err = await peer.request("fail").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(AdaptorError.is(err)).toBe(true);
    expect(err).toMatchObject({ code: "jsonrpc_error", rpcCode: -32000, message: "it failed", data: { why: "asked to" } });
    await expect(peer.request("no/such/method")).rejects.toMatchObject({ rpcCode: JsonRpcErrorCode.MethodNotFound });
    await peer.close();
  });

  it("delivers notifications in order, before the response that follows them", async () => {
    const notes: unknown[] = [];
    const { peer } = await connect({ onNotification: (method, params) => void notes.push({ method, params }) });
    expect(await peer.request("notifyMe")).toBe("notified");
    expect(notes).toEqual([
      { method: "note", params: { n: 1 } },
      { method: "note", params: { n: 2 } },
    ]);
    await peer.notify("ping", { x: 1 });
    await expect.poll(() => notes.length).toBe(3);
    expect(notes[2]).toEqual({ method: "pong", params: { x: 1 } });
    await peer.close();
  });

  it("answers requests from the child with results, errors and method-not-found", async () => {
    const { peer } = await connect({
      onRequest: async (method, params) => {
        if (method === "host/add") {
          const [a, b] = params as [number, number];
          return a + b;
        }
        if (method === "host/deny") throw new JsonRpcError(-32001, "denied", { reason: "policy" });
        if (method === "host/crash") throw new Error("secret internal detail");
        throw JsonRpcError.methodNotFound(method);
      },
    });
    expect(await peer.request("callback", { method: "host/add", params: [2, 3] })).toEqual({ fromHost: 5, hostError: null });
    expect(await peer.request("callback", { method: "host/deny" })).toEqual({
      fromHost: null,
      hostError: { code: -32001, message: "denied", data: { reason: "policy" } },
    });
    const crashed = (await peer.request("callback", { method: "host/crash" })) as { hostError: { code: number; message: string } };
    expect(crashed.hostError.code).toBe(-32603);
    expect(crashed.hostError.message).not.toContain("secret internal detail");
    expect(await peer.request("callback", { method: "host/unknown" })).toMatchObject({ hostError: { code: -32601 } });
    await peer.close();
  });

  it("answers -32601 when it has no request handler", async () => {
    const { peer } = await connect();
    expect(await peer.request("callback", { method: "host/anything" })).toMatchObject({ fromHost: null, hostError: { code: -32601 } });
    await peer.close();
  });

  it("reports a malformed line and keeps working", async () => {
    const { peer, errors } = await connect();
    expect(await peer.request("garbage")).toBe("after garbage");
    expect(errors.map((e) => e.code)).toEqual(["invalid_json"]);
    await peer.close();
  });

  it("rejects an aborted request with request_cancelled and ignores its late answer", async () => {
    const { peer, errors } = await connect();
    const ac = new AbortController();
    const hanging = peer.request("hang", undefined, { signal: ac.signal });
    ac.abort();
    await expect(hanging).rejects.toMatchObject({ code: "request_cancelled" });
    await expect(peer.request("echo", 1, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "request_cancelled" });
    expect(peer.pendingCount).toBe(0);
    // The peer still works afterwards.
    expect(await peer.request("echo", "still")).toMatchObject({ params: "still" });
    expect(errors).toEqual([]);
    await peer.close();
  });

  it("rejects every pending request with peer_exited when the child exits", async () => {
    const { peer, child } = await connect();
    const hanging = [peer.request("hang"), peer.request("hang")];
    const exiting = peer.request("exit");
    for (const p of [...hanging, exiting]) await expect(p).rejects.toMatchObject({ code: "peer_exited" });
    expect((await child.exited).code).toBe(3);
    await peer.done;
    await expect(peer.request("echo")).rejects.toMatchObject({ code: "peer_exited" });
    await expect(peer.notify("ping")).rejects.toMatchObject({ code: "peer_exited" });
  });

  it("close() rejects pending requests with request_cancelled and aborts incoming handlers", async () => {
    let handlerSignal: AbortSignal | undefined;
    let handlerEntered: () => void = () => {};
    const entered = new Promise<void>((resolve) => (handlerEntered = resolve));
    const { peer } = await connect({
      onRequest: (_method, _params, signal) => {
        handlerSignal = signal;
        handlerEntered();
        return new Promise(() => {});
      },
    });
    const waiting = peer.request("callback", { method: "host/slow" });
    await entered;
    const hanging = peer.request("hang");
    await peer.close();
    await expect(waiting).rejects.toMatchObject({ code: "request_cancelled" });
    await expect(hanging).rejects.toMatchObject({ code: "request_cancelled" });
    expect(handlerSignal?.aborted).toBe(true);
    await expect(peer.request("echo")).rejects.toMatchObject({ code: "request_cancelled" });
    await peer.close(); // idempotent
  });
});

describe("JsonRpcPeer message classification", () => {
  function pair(options: Partial<JsonRpcPeerOptions> = {}) {
    const fromPeer = new PassThrough();
    const toPeer = new PassThrough();
    const sent: unknown[] = [];
    toPeer.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) if (line !== "") sent.push(JSON.parse(line));
    });
    const errors: ProtocolError[] = [];
    const peer = new JsonRpcPeer({ input: fromPeer, output: toPeer, onProtocolError: (e) => errors.push(e), ...options });
    const receive = (m: unknown): void => void fromPeer.write(`${JSON.stringify(m)}\n`);
    return { peer, fromPeer, sent, errors, receive };
  }

  it("reports responses for unknown ids, non-objects and shapeless messages", async () => {
    const { peer, errors, receive, fromPeer } = pair();
    receive({ id: 99, result: 1 });
    receive([1, 2]);
    receive({ hello: "world" });
    fromPeer.end();
    await peer.done;
    expect(errors.map((e) => e.code)).toEqual(["protocol_error", "protocol_error", "protocol_error"]);
  });

  it("treats a message with id and method as a request, even with a null id", async () => {
    const { peer, sent, receive, fromPeer } = pair({ onRequest: () => "ok" });
    receive({ id: null, method: "x" });
    receive({ id: "s-1", method: "y", params: {} });
    await expect.poll(() => sent.length).toBe(2);
    expect(sent).toEqual([
      { jsonrpc: "2.0", id: null, result: "ok" },
      { jsonrpc: "2.0", id: "s-1", result: "ok" },
    ]);
    fromPeer.end();
    await peer.done;
  });

  it("ignores the late answer of an aborted request", async () => {
    const { peer, sent, receive, errors, fromPeer } = pair();
    const ac = new AbortController();
    const pending = peer.request("slow", undefined, { signal: ac.signal });
    await expect.poll(() => sent.length).toBe(1);
    ac.abort();
    await expect(pending).rejects.toMatchObject({ code: "request_cancelled" });
    receive({ id: (sent[0] as { id: number }).id, result: "late" });
    fromPeer.end();
    await peer.done;
    expect(errors).toEqual([]);
  });

  it("answers -32603 when a handler's result cannot be serialized", async () => {
    const { peer, sent, receive, fromPeer } = pair({ onRequest: () => ({ big: 1n }) });
    receive({ id: 7, method: "x" });
    await expect.poll(() => sent.length).toBe(1);
    expect(sent[0]).toMatchObject({ id: 7, error: { code: -32603 } });
    fromPeer.end();
    await peer.done;
  });

  it("redacts error messages that come from the peer", async () => {
    const { peer, sent, receive } = pair();
    const pending = peer.request("m");
    await expect.poll(() => sent.length).toBe(1);
    const { id } = sent[0] as { id: number };
    receive({ id, error: { code: 1, message: "bad key sk-ant-api03-abcdefghijklmnop" } });
    const err = (await pending.catch((e: unknown) => e)) as JsonRpcError;
    expect(err.message).not.toContain("abcdefghijklmnop");
    expect(err.rpcCode).toBe(1);
    await peer.close();
  });
});
