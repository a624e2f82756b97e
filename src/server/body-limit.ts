/**
 * The request body limit. A declared `content-length` over the limit is refused before anything is
 * read (Node's parser never reads past a declared length); a body without one (chunked) is read up
 * to the limit and refused as soon as it passes it. What was read is handed to hono's body cache,
 * so the route's validator parses it without a second read.
 *
 * hono's own `bodyLimit` rebuilds the request with the global `Request`, which does not accept
 * the node adapter's request object when the adapter leaves the globals alone (as an embeddable
 * server must): a chunked body then failed with a TypeError.
 */
import type { Context, MiddlewareHandler } from "hono";

export function bodyLimit(maxBytes: number, refuse: (c: Context) => Response): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
      return Number(declared) > maxBytes ? refuse(c) : next();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return refuse(c);
      }
      chunks.push(value);
    }
    const bytes = Buffer.concat(chunks, size);
    // hono keeps the promise of each body form it read (its declared type names the resolved values).
    (c.req.bodyCache as Record<string, unknown>).arrayBuffer = Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + size));
    return next();
  };
}
