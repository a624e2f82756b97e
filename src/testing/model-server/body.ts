/** Reading request bodies: size limit, content-encoding, JSON. */
import type { IncomingMessage } from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { parseJsonOrText } from "./json.js";

/** Largest request body accepted (images travel inline as base64). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A body the server cannot read; answered with `status`. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? "identity").toLowerCase()) {
    case "identity":
      return raw;
    case "gzip":
    case "x-gzip":
      return gunzipSync(raw);
    case "deflate":
      return inflateSync(raw);
    case "br":
      return brotliDecompressSync(raw);
    default:
      throw new BodyError(415, `unsupported content-encoding: ${encoding}`);
  }
}

/** The parsed body: `undefined` when empty, JSON when it parses, else the text. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    parts.push(buffer);
  }
  if (size === 0) return undefined;
  const text = decode(Buffer.concat(parts), req.headers["content-encoding"]).toString("utf8");
  return parseJsonOrText(text);
}
