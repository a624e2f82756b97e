/**
 * A host-tool round trip through the agent's loopback MCP server (issue #16): the official SDK
 * client calling one tool over Streamable HTTP on 127.0.0.1 — bearer check, session lookup,
 * argument validation, the handler, the result back — against calling the handler directly with
 * the same validated arguments.
 *
 *   node scripts/bench.mjs host-tools [--n 2000] [--warmup 200]
 *
 * Two more sides put the figure in context: the same `tools/call` posted with a bare `fetch` (the
 * server's share, without the SDK client's), and a bare HTTP JSON echo on 127.0.0.1 with the same
 * `fetch` (the floor any loopback transport pays). The sides rotate call by call, so drifting
 * machine load hits all alike. Reported: p50 and p95 of each side and the p50 the server adds
 * over the direct call. The last line printed is one JSON object; target: at most 5 ms added at p50.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { resolveHostTools } from "../src/agent/host-tool-schemas.js";
import { LoopbackServer } from "../src/resources/host-tools/server.js";
import { formatLoad, percentile } from "./stats.js";

interface Options {
  n: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { n: 2000, warmup: 200 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --n, --warmup)`);
    const value = Number(inline ?? argv[++i] ?? "");
    if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} needs a non-negative integer`);
    options[key as keyof Options] = value;
  }
  return options;
}

/** A tool shaped like a real one: a small object in, a small JSON object out. */
const TOOL = {
  name: "lookup_order",
  description: "Looks an order up",
  inputSchema: { type: "object", properties: { id: { type: "string" }, fields: { type: "array", items: { type: "string" } } }, required: ["id"] },
  handler: (args: unknown) => ({ order: (args as { id: string }).id, status: "shipped", items: 3 }),
};
const ARGS = { id: "ord_12345", fields: ["status", "items"] };

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const [tool] = resolveHostTools([TOOL], "tools");
  const server = new LoopbackServer({ serverName: "host", tools: [tool!], redact: (text) => text, addSecret: () => undefined, forgetSecret: () => undefined });
  const { endpoint, view } = await server.open();
  const run = new AbortController();
  endpoint.bind({ runId: "run_bench", services: [], signal: run.signal });
  const client = new Client({ name: "bench", version: "0" });
  const transport = new StreamableHTTPClientTransport(new URL(view.http.url), { requestInit: { headers: view.http.headers } });
  await client.connect(transport);
  const rawHeaders = { ...view.http.headers, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": transport.sessionId ?? "", "mcp-protocol-version": "2025-06-18" };
  let rawId = 1_000_000;
  const rawCall = async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++rawId, method: "tools/call", params: { name: TOOL.name, arguments: ARGS } });
    return (await fetch(view.http.url, { method: "POST", headers: rawHeaders, body })).json();
  };

  const direct = async () => {
    const checked = await tool!.validate(ARGS);
    if (!checked.ok) throw new Error(checked.problem);
    return JSON.stringify(await tool!.call(checked.value, { signal: run.signal, runId: "run_bench" }));
  };
  const viaServer = () => client.callTool({ name: TOOL.name, arguments: ARGS });
  const echo = await echoServer();
  const bareHttp = async () => (await fetch(echo.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ARGS) })).json();
  const sides = { direct, server: viaServer, raw: rawCall, http: bareHttp };
  const names = Object.keys(sides) as (keyof typeof sides)[];

  const timings = { direct: [] as number[], server: [] as number[], raw: [] as number[], http: [] as number[] };
  // CPU time (both ends run in this process) does not wait for the scheduler as wall time does.
  const cpu = { direct: [] as number[], server: [] as number[], raw: [] as number[], http: [] as number[] };
  for (let i = 0; i < options.warmup + options.n; i++) {
    for (let k = 0; k < names.length; k++) {
      const side = names[(i + k) % names.length]!;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await sides[side]();
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpuStart);
      if (i >= options.warmup) {
        timings[side].push(wall);
        cpu[side].push((used.user + used.system) / 1000);
      }
    }
  }
  await client.close();
  await server.close();
  await echo.close();

  const stat = (of: Record<keyof typeof sides, number[]>, p: number) =>
    Object.fromEntries(names.map((name) => [name, percentile(of[name], p)])) as Record<keyof typeof sides, number>;
  const p50 = stat(timings, 50);
  const p95 = stat(timings, 95);
  const addedP50 = p50.server - p50.direct;
  const cpuP50 = stat(cpu, 50);
  const addedRawP50 = p50.raw - p50.direct;
  console.log(`host-tool round trip, ${options.n} calls per side (alternating), load ${formatLoad(loadavg())}`);
  const row = (label: string, side: keyof typeof p50, note = "") =>
    console.log(`  ${label.padEnd(21)} p50 ${p50[side].toFixed(3)} ms   p95 ${p95[side].toFixed(3)} ms   cpu p50 ${cpuP50[side].toFixed(3)} ms${note}`);
  row("direct handler call", "direct");
  row("loopback MCP server", "server", " (SDK client)");
  row("same, bare fetch", "raw", " (the server's share)");
  row("bare loopback HTTP", "http", " (context: the transport's floor)");
  console.log(`  added at p50          ${addedP50.toFixed(3)} ms with the SDK client, ${addedRawP50.toFixed(3)} ms with a bare fetch (target ≤ 5 ms)`);
  console.log(JSON.stringify({ bench: "host-tools", n: options.n, p50, p95, cpuP50, addedP50Ms: addedP50, addedRawP50Ms: addedRawP50, targetMs: 5, load: loadavg() }));
}

/** A plain HTTP server answering each POST with its body. */
async function echoServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

await main();
