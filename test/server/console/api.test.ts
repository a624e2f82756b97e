/** The console's API client against a real HTTP server: bearer token, JSON bodies, paths, errors. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, createApi, type Api } from "../../../console/src/api.js";

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  type: string | undefined;
  body: unknown;
}

let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, type: req.headers["content-type"], body: text === "" ? undefined : JSON.parse(text) });
      res.setHeader("content-type", "application/json");
      if (req.url!.includes("/missing")) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { code: "not_found", message: "no session missing" } }));
      } else if (req.url!.endsWith("/agents")) res.end(JSON.stringify({ agents: [{ name: "demo", driver: { id: "openai", name: "OpenAI" }, workspace: "/w" }] }));
      else if (req.url!.endsWith("/broken")) {
        res.statusCode = 502;
        res.end("<html>bad gateway</html>");
      } else res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("console API client", () => {
  it("sends the token as a bearer header and bodies as JSON, on the routes of the contract", async () => {
    const api: Api = createApi("tok-1", base);
    seen.length = 0;
    expect(await api.agents()).toEqual([{ name: "demo", driver: { id: "openai", name: "OpenAI" }, workspace: "/w" }]);
    await api.sessions(100);
    await api.createSession("demo");
    await api.submit("ses/1", "hello");
    await api.steer("ses/1", "left");
    await api.followUp("ses/1", "then");
    await api.interrupt("ses/1");
    await api.hold("ses/1", "why");
    await api.pause("ses/1", "because");
    await api.resume("ses/1", "steer", "go");
    await api.resume("ses/1", "continue", "");
    await api.approve("ses/1", "req 1", { optionId: "acceptForSession" });
    await api.answer("ses/1", "q1", { color: "red", langs: ["ts"] });
    await api.decline("ses/1", "q1");
    await api.addBudget("ses/1", { tokens: 1000 });
    await api.resetRunCeiling("ses/1");
    await api.configure("ses/1", { model: "gpt-5", effort: null });
    await api.archive("ses/1");
    expect(seen.every((s) => s.auth === "Bearer tok-1")).toBe(true);
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ["GET", "/api/agents", undefined],
      ["GET", "/api/sessions?limit=100", undefined],
      ["POST", "/api/sessions", { agent: "demo" }],
      ["POST", "/api/sessions/ses%2F1/submit", { text: "hello" }],
      ["POST", "/api/sessions/ses%2F1/steer", { text: "left" }],
      ["POST", "/api/sessions/ses%2F1/follow-up", { text: "then" }],
      ["POST", "/api/sessions/ses%2F1/interrupt", undefined],
      ["POST", "/api/sessions/ses%2F1/hold", { reason: "why" }],
      ["POST", "/api/sessions/ses%2F1/pause", { reason: "because" }],
      ["POST", "/api/sessions/ses%2F1/resume", { mode: "steer", message: "go" }],
      ["POST", "/api/sessions/ses%2F1/resume", { mode: "continue" }],
      ["POST", "/api/sessions/ses%2F1/approvals/req%201", { optionId: "acceptForSession" }],
      ["POST", "/api/sessions/ses%2F1/questions/q1", { answers: { color: "red", langs: ["ts"] } }],
      ["POST", "/api/sessions/ses%2F1/questions/q1", { decline: true }],
      ["POST", "/api/sessions/ses%2F1/budget", { tokens: 1000 }],
      ["POST", "/api/sessions/ses%2F1/reset-run-ceiling", undefined],
      ["POST", "/api/sessions/ses%2F1/configure", { model: "gpt-5", effort: null }],
      ["POST", "/api/sessions/ses%2F1/archive", undefined],
    ]);
    expect(seen.filter((s) => s.body !== undefined).every((s) => s.type === "application/json")).toBe(true);
    expect(api.eventsUrl("ses/1")).toBe(`${base}sessions/ses%2F1/events`);
  });

  it("turns an error body into an ApiError with its status, code and message", async () => {
    const api = createApi("t", base);
    const error = await api.session("missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: "not_found", message: "no session missing" });
  });

  it("keeps a non-JSON failure readable", async () => {
    const api = createApi("t", base);
    const error = await api.session("broken").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: "http_error", message: "HTTP 502" });
  });
});
