/**
 * The console's static files as the server serves them: built for real into a temp folder by
 * scripts/build-console.mjs, then requested through the hono app.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP, consoleAssets } from "../../../src/server/console-assets.js";

const run = promisify(execFile);
let dir: string;
let built: string;
let secretDir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "console-assets-"));
  built = join(dir, "console");
  secretDir = join(dir, "secret");
  await run(process.execPath, ["scripts/build-console.mjs", "--out", built], { cwd: join(import.meta.dirname, "../../..") });
  // Things that must never be served: a file beside the build, a symlink inside it, a dotfile.
  await writeFile(join(dir, "outside.txt"), "outside");
  await mkdir(secretDir);
  await writeFile(join(secretDir, "token.txt"), "the-token");
  await symlink(join(secretDir, "token.txt"), join(built, "assets", "link.txt"));
  await writeFile(join(built, "assets", ".hidden.js"), "hidden");
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (app: ReturnType<typeof consoleAssets>, path: string, init?: RequestInit) => app.fetch(new Request(`http://127.0.0.1${path}`, init));

describe("console assets", () => {
  it("serves index.html at / with the security headers, referencing only its own hashed assets", async () => {
    const app = consoleAssets({ root: built });
    const res = await get(app, "/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain("unsafe-inline");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    // The bundle and the stylesheet, plus an empty data: icon so the browser asks for no favicon.
    expect(refs.filter((ref) => ref !== "data:,")).toHaveLength(2);
    for (const ref of refs) expect(ref).toMatch(/^(assets\/(console|styles)-[A-Z0-9]{8}\.(js|css)|data:,)$/);
    // No inline script or style for the CSP to forbid.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|style="/);
  });

  it("serves every built asset with its type and a long cache, and answers a matching ETag with 304", async () => {
    const app = consoleAssets({ root: built });
    const names = (await readdir(join(built, "assets"))).filter((n) => /\.(js|css)$/.test(n) && !n.startsWith("."));
    expect(names).toHaveLength(2);
    for (const name of names) {
      const res = await get(app, `/assets/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const body = new Uint8Array(await res.arrayBuffer());
      expect(Buffer.from(body).equals(await readFile(join(built, "assets", name)))).toBe(true);
      const again = await get(app, `/assets/${name}`, { headers: { "if-none-match": res.headers.get("etag")! } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
    }
  });

  it("answers HEAD without a body", async () => {
    const app = consoleAssets({ root: built });
    const res = await get(app, "/", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  it("never serves anything outside the listing: traversal, encoded separators, symlinks, dotfiles, later files", async () => {
    const app = consoleAssets({ root: built });
    await writeFile(join(built, "assets", "added-later.js"), "late");
    const paths = [
      "/assets/../index.html",
      "/assets/..%2F..%2Foutside.txt",
      "/assets/%2e%2e%2f%2e%2e%2foutside.txt",
      "/assets/..%5C..%5Coutside.txt",
      "/assets/link.txt",
      "/assets/.hidden.js",
      "/assets/added-later.js",
      "/assets/",
      "/assets/x/../../outside.txt",
      "/assets/%00.js",
    ];
    for (const path of paths) {
      const res = await get(app, path);
      const body = await res.text();
      expect(body, path).not.toContain("the-token");
      expect(body, path).not.toBe("outside");
      expect(body, path).not.toBe("late");
      expect(body, path).not.toBe("hidden");
      if (res.status === 200) {
        // `/assets/../index.html` is normalized by URL parsing to `/index.html`: not a console route either.
        throw new Error(`${path} answered 200`);
      }
      expect(res.status, path).toBe(404);
    }
  });

  it("answers 503 with a plain hint at / when the console is not built", async () => {
    const app = consoleAssets({ root: join(dir, "nothing-here") });
    const res = await get(app, "/");
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toContain("npm run build");
    expect((await get(app, "/assets/console.js")).status).toBe(404);
  });
});
