/**
 * Serves the built web console: `GET /` → index.html, `GET /assets/<name>` → the bundled script
 * and stylesheet. What may be served is fixed when the app is created, from a listing of the
 * build folder: regular files only (no symlink is followed), one folder level, plain names. A
 * request is a lookup in that table and never becomes a filesystem path, so `..`, encoded
 * separators or a file added later cannot reach anything else. The files hold no data, so they
 * need no token; the API they call does.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono, type Context } from "hono";

export interface ConsoleAssetsOptions {
  /** The built console folder (index.html and assets/). Default: `../console/` beside this module, i.e. dist/console. */
  root?: string;
}

/** No inline script anywhere; styles come from the stylesheet only; the page talks to its own origin alone. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** The build names assets `<name>-<hash>.<ext>`: such a file never changes, so it is cached for good. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
  cacheControl: string;
}

const NOT_BUILT = "The console is not built: run `npm run build` (it bundles the console into dist/console).\n";

/** The console as a hono app to mount at the server's root (`app.route("/", consoleAssets())`). */
export function consoleAssets(options: ConsoleAssetsOptions = {}): Hono {
  const root = options.root ?? fileURLToPath(new URL("../console/", import.meta.url));
  const index = loadFile(join(root, "index.html"), "index.html", "no-cache");
  const assets = index === undefined ? new Map<string, Asset>() : listAssets(join(root, "assets"));
  const app = new Hono();
  app.get("/", (c) => (index === undefined ? plain(c, 503, NOT_BUILT) : serve(c, index)));
  app.get("/assets/:name", (c) => {
    const asset = assets.get(c.req.param("name"));
    return asset === undefined ? plain(c, 404, "Not found\n") : serve(c, asset);
  });
  return app;
}

function listAssets(dir: string): Map<string, Asset> {
  const table = new Map<string, Asset>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return table;
  }
  for (const name of names) {
    if (!PLAIN_NAME.test(name)) continue;
    const asset = loadFile(join(dir, name), name, HASHED.test(name) ? "public, max-age=31536000, immutable" : "no-cache");
    if (asset !== undefined) table.set(name, asset);
  }
  return table;
}

/** A regular file (lstat: a symlink is never followed) with a known type, read once, now. */
function loadFile(path: string, name: string, cacheControl: string): Asset | undefined {
  const type = CONTENT_TYPES[extensionOf(name)];
  if (type === undefined) return undefined;
  try {
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return undefined;
    const body = new Uint8Array(readFileSync(path));
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    return { body, type, etag, cacheControl };
  } catch {
    return undefined;
  }
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot === -1 ? "" : name.slice(dot).toLowerCase();
}

function serve(c: Context, asset: Asset): Response {
  const headers = { ...SECURITY_HEADERS, "cache-control": asset.cacheControl, etag: asset.etag };
  if (matches(c.req.header("if-none-match"), asset.etag)) return new Response(null, { status: 304, headers });
  const body = c.req.method === "HEAD" ? null : asset.body;
  return new Response(body, { status: 200, headers: { ...headers, "content-type": asset.type, "content-length": String(asset.body.byteLength) } });
}

function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*");
}

function plain(c: Context, status: 404 | 503, text: string): Response {
  const body = c.req.method === "HEAD" ? null : text;
  return new Response(body, { status, headers: { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
}
