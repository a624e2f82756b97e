/**
 * The attach server's security over real HTTP on 127.0.0.1: the bearer token on every /api route
 * (401 the same without and with a wrong token), the token file (0600, reused, never logged), the
 * loopback default and the refusal of a non-loopback bind without a token, CORS closed unless
 * configured, the body limit (413 with content-length and chunked), and no file served outside the
 * console's assets (`..` and encoded traversal).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAttachServer } from "../../../src/server/index.js";
import { bearerMatches } from "../../../src/server/token.js";
import { fakeConfig, startServer, tempDir, type TestServer } from "./helpers.js";

let s: TestServer;
const dirs: string[] = [];
/** A built console stand-in: what the assets handler may serve, next to a secret it must not. */
let consoleRoot: string;
beforeAll(async () => {
  const root = temp();
  consoleRoot = join(root, "console");
  mkdirSync(join(consoleRoot, "assets"), { recursive: true });
  writeFileSync(join(consoleRoot, "index.html"), "<!doctype html><title>console</title>");
  writeFileSync(join(consoleRoot, "assets", "app.js"), "console.log('app');");
  writeFileSync(join(root, "secret.txt"), "SECRET-NEXT-TO-THE-CONSOLE");
  s = await startServer({ consoleRoot });
});
afterAll(async () => {
  await s?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function temp(): string {
  const dir = tempDir("aa-sec-");
  dirs.push(dir);
  return dir;
}

/** A raw request whose path is sent byte for byte (fetch would normalize `..`). */
function raw(url: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer[] } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: init.method ?? "GET", headers: init.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    if (Array.isArray(init.body)) {
      // Chunked: no content-length, the body arrives in parts.
      for (const part of init.body) req.write(part);
      req.end();
    } else req.end(init.body);
  });
}

const ROUTES: [string, string][] = [
  ["GET", "/api/health"],
  ["GET", "/api/openapi.json"],
  ["GET", "/api/agents"],
  ["GET", "/api/agents/fake/inspection"],
  ["GET", "/api/sessions"],
  ["POST", "/api/sessions"],
  ["GET", "/api/sessions/x"],
  ["POST", "/api/sessions/x/submit"],
  ["GET", "/api/sessions/x/events"],
  ["POST", "/api/sessions/x/approvals/r"],
  ["GET", "/api/threads"],
  ["DELETE", "/api/threads/x"],
  ["GET", "/api/no-such-route"],
];

describe("bearer token", () => {
  it("answers 401 on every /api route without a token and with a wrong one, with the same body", async () => {
    const bodies = new Set<string>();
    for (const [method, path] of ROUTES) {
      for (const authorization of [undefined, "Bearer wrong-token-of-some-length", `Bearer ${s.token}x`, s.token, `Basic ${s.token}`, "Bearer "]) {
        const response = await s.api(path, { method, auth: false, ...(authorization !== undefined ? { headers: { authorization } } : {}) });
        expect([method, path, authorization === undefined ? "none" : "wrong", response.status]).toEqual([method, path, authorization === undefined ? "none" : "wrong", 401]);
        expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
        bodies.add(await response.text());
      }
    }
    expect([...bodies]).toEqual([JSON.stringify({ error: { code: "unauthorized", message: "a valid bearer token is required" } })]);
    expect([...bodies][0]).not.toContain(s.token);
    const ok = await s.api("/api/health");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true, version: expect.any(String), sessions: expect.any(Number) });
  });

  it("compares whole tokens: a prefix, an extension or another case is refused", () => {
    const token = "0123456789abcdefXYZ";
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
    for (const attempt of [token.slice(0, -1), `${token}0`, token.toLowerCase(), "", " "]) expect(bearerMatches(`Bearer ${attempt}`, token)).toBe(false);
    expect(bearerMatches(undefined, token)).toBe(false);
    expect(bearerMatches(token, token)).toBe(false);
  });

  it("generates the token file with mode 0600 in the state directory, reuses it on the next start, and never logs it", async () => {
    const file = join(s.stateDir, "token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(s.stateDir).mode & 0o077).toBe(0);
    expect(readFileSync(file, "utf8").trim()).toBe(s.token);
    expect(s.token.length).toBeGreaterThanOrEqual(32);
    const logs: string[] = [];
    const second = await createAttachServer({ config: fakeConfig(s.workspace), stateDir: s.stateDir, port: 0, log: (l) => logs.push(l) });
    try {
      expect(second.token).toBe(s.token);
      const { consoleUrl, url } = await second.listen();
      expect(consoleUrl).toBe(`${url}/#token=${encodeURIComponent(s.token)}`);
    } finally {
      await second.close();
    }
    expect(s.logs.length).toBeGreaterThan(0);
    for (const line of [...logs, ...s.logs]) expect(line).not.toContain(s.token);
  });

  it("narrows a token file others can read to 0600 before using it", async () => {
    const dir = join(temp(), "state");
    const first = await createAttachServer({ config: fakeConfig(s.workspace), stateDir: dir, port: 0 });
    await first.close();
    chmodSync(join(dir, "token"), 0o644);
    const second = await createAttachServer({ config: fakeConfig(s.workspace), stateDir: dir, port: 0 });
    await second.close();
    expect(statSync(join(dir, "token")).mode & 0o777).toBe(0o600);
    expect(second.token).toBe(first.token);
  });

  it("uses a given token without writing a token file; a short one is refused", async () => {
    const dir = join(temp(), "state");
    const given = "a-given-token-0123456789";
    const server = await createAttachServer({ config: fakeConfig(s.workspace), stateDir: dir, token: given, port: 0 });
    try {
      expect(server.token).toBe(given);
      expect(existsSync(join(dir, "token"))).toBe(false);
      const response = await server.app.fetch(new Request("http://local/api/health", { headers: { authorization: `Bearer ${given}` } }));
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
    await expect(createAttachServer({ config: fakeConfig(s.workspace), stateDir: dir, token: "short", port: 0 })).rejects.toMatchObject({ code: "config_invalid" });
  });
});

describe("binding", () => {
  it("binds 127.0.0.1 by default", () => {
    expect(new URL(s.url).hostname).toBe("127.0.0.1");
  });

  it("refuses a non-loopback host without an explicit token, before binding or writing anything", async () => {
    for (const host of ["0.0.0.0", "::", "[::]", "192.168.1.20", "10.0.0.1", "example.org"]) {
      const dir = join(temp(), "state");
      const refused = createAttachServer({ config: fakeConfig(s.workspace), stateDir: dir, host, port: 0 });
      await expect(refused).rejects.toMatchObject({ code: "config_invalid", message: expect.stringContaining("non-loopback") });
      expect(existsSync(dir)).toBe(false);
    }
    // The config file's host is held to the same rule.
    const dir = join(temp(), "state");
    await expect(createAttachServer({ config: fakeConfig(s.workspace, { server: { host: "0.0.0.0" } }), stateDir: dir, port: 0 })).rejects.toMatchObject({ code: "config_invalid" });
  });

  it("refuses a port in use with a ConfigError", async () => {
    const port = Number(new URL(s.url).port);
    const second = await createAttachServer({ config: fakeConfig(s.workspace), stateDir: join(temp(), "state"), port });
    try {
      await expect(second.listen()).rejects.toMatchObject({ code: "config_invalid", message: expect.stringContaining("in use") });
    } finally {
      await second.close();
    }
  });

  it("binds 0.0.0.0 when a token is given", async () => {
    const server = await createAttachServer({ config: fakeConfig(s.workspace), stateDir: join(temp(), "state"), host: "0.0.0.0", token: "explicit-token-0123456789", port: 0 });
    try {
      const { url } = await server.listen();
      expect(new URL(url).hostname).toBe("0.0.0.0");
    } finally {
      await server.close();
    }
  });
});

describe("CORS", () => {
  it("sends no Access-Control headers by default and refuses preflights", async () => {
    const response = await s.api("/api/health", { headers: { origin: "http://evil.example" } });
    expect(response.status).toBe(200);
    expect([...response.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
    const preflight = await raw(s.url, "/api/sessions", {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });
    expect(preflight.status).toBe(403);
    expect(Object.keys(preflight.headers).filter((k) => k.startsWith("access-control-"))).toEqual([]);
  });

  it("answers configured origins only", async () => {
    const open = await startServer({ cors: { origins: ["http://console.example:8080"] } });
    try {
      const preflight = await raw(open.url, "/api/sessions", {
        method: "OPTIONS",
        headers: { origin: "http://console.example:8080", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe("http://console.example:8080");
      expect(preflight.headers["access-control-allow-headers"]).toMatch(/Authorization/);
      const allowed = await open.api("/api/health", { headers: { origin: "http://console.example:8080" } });
      expect(allowed.headers.get("access-control-allow-origin")).toBe("http://console.example:8080");
      const other = await raw(open.url, "/api/sessions", { method: "OPTIONS", headers: { origin: "http://evil.example", "access-control-request-method": "POST" } });
      expect(other.status).toBe(403);
      expect(other.headers["access-control-allow-origin"]).toBeUndefined();
      const otherGet = await open.api("/api/health", { headers: { origin: "http://evil.example" } });
      expect(otherGet.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await open.close();
    }
  });
});

describe("body limit", () => {
  it("answers 413 to a body over the limit, with content-length and chunked", async () => {
    const small = await startServer({ maxBodyBytes: 1024 });
    try {
      const big = JSON.stringify({ agent: "fake", metadata: { pad: "x".repeat(4096) } });
      const auth = { authorization: `Bearer ${small.token}`, "content-type": "application/json" };
      const sized = await raw(small.url, "/api/sessions", { method: "POST", headers: { ...auth, "content-length": String(Buffer.byteLength(big)) }, body: big });
      expect(sized.status).toBe(413);
      expect(JSON.parse(sized.body)).toMatchObject({ error: { code: "body_too_large" } });
      const chunked = await raw(small.url, "/api/sessions", { method: "POST", headers: { ...auth, "transfer-encoding": "chunked" }, body: [Buffer.from(big.slice(0, 2000)), Buffer.from(big.slice(2000))] });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toMatchObject({ error: { code: "body_too_large" } });
      const fits = await small.api("/api/sessions", { json: { agent: "fake" } });
      expect(fits.status).toBe(201);
      const fitsChunked = await raw(small.url, "/api/sessions", { method: "POST", headers: { ...auth, "transfer-encoding": "chunked" }, body: [Buffer.from('{"agent":'), Buffer.from('"fake","id":"chunked"}')] });
      expect(fitsChunked.status).toBe(201);
      const badChunked = await raw(small.url, "/api/sessions", { method: "POST", headers: { ...auth, "transfer-encoding": "chunked" }, body: [Buffer.from('{"agent":'), Buffer.from("3}")] });
      expect([badChunked.status, JSON.parse(badChunked.body).error.code]).toEqual([400, "body_invalid"]);
      expect(((await (await small.api("/api/sessions")).json()) as { sessions: unknown[] }).sessions).toHaveLength(2);
    } finally {
      await small.close();
    }
  });
});

describe("files", () => {
  it("serves nothing outside the console's assets: `..` and encoded traversal are 404", async () => {
    expect((await raw(s.url, "/")).body).toContain("<title>console</title>");
    expect((await raw(s.url, "/assets/app.js")).status).toBe(200);
    for (const path of [
      "/assets/../secret.txt",
      "/assets/%2e%2e/secret.txt",
      "/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
      "/%2e%2e/secret.txt",
      "/secret.txt",
      "/assets/..%5csecret.txt",
      "/assets/../package.json",
      "/assets/%2e%2e/package.json",
      "/assets/%2E%2E%2Fpackage.json",
      "/assets/..%2f..%2fpackage.json",
      "/%2e%2e/%2e%2e/package.json",
      "/../../../etc/passwd",
      "/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "/api/../package.json",
      "/package.json",
      "/src/server/server.ts",
      "/assets/",
    ]) {
      const response = await raw(s.url, path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.body).not.toContain('"name": "agent-adaptor"');
      expect(response.body).not.toContain("root:");
      expect(response.body).not.toContain("SECRET-NEXT-TO-THE-CONSOLE");
    }
  });
});
