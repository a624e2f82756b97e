/**
 * The server's bearer token: given by the host, or read from `<stateDir>/token`, or generated
 * there on first start (mode 0600 in a 0700 folder) and reused afterwards. Compared in constant
 * time. The token never reaches a log line or an error message.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "../errors/index.js";

export const TOKEN_FILE = "token";
const MIN_TOKEN_LENGTH = 16;

function checkToken(token: string, source: string): string {
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) throw new ConfigError(`the ${source} token must be at least ${MIN_TOKEN_LENGTH} characters without whitespace`);
  return token;
}

/** The token to require: `given`, or the (existing) state directory's token file, created when missing. */
export async function resolveToken(stateDir: string, given: string | undefined, log: (line: string) => void): Promise<string> {
  if (given !== undefined) return checkToken(given, "given");
  const path = join(stateDir, TOKEN_FILE);
  try {
    await writeFile(path, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    log("generated a new access token in the state directory");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new ConfigError("the token file cannot be written in the state directory");
  }
  // A token file others may read is narrowed to its owner before it is trusted again.
  if (((await stat(path)).mode & 0o077) !== 0) {
    await chmod(path, 0o600);
    log("narrowed the token file's permissions to its owner (0600)");
  }
  return checkToken((await readFile(path, "utf8")).trim(), "stored");
}

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

/**
 * Whether an `Authorization` header carries `token`: both sides are hashed first, so the
 * comparison takes the same time whatever the length or content of the attempt.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "");
  const attempt = match?.[1] ?? "";
  const equal = timingSafeEqual(digest(attempt), digest(token));
  return equal && match !== null;
}
