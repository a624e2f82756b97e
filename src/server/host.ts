/** Which listen addresses stay on this machine: only those may be bound without an explicit token. */
import { isIP } from "node:net";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 7878;

/** `127.0.0.0/8`, `::1`, `::ffff:127.x.y.z` and `localhost`. Everything else (0.0.0.0, ::, a LAN address, a name) is not. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || /^::ffff:127\./.test(bare) || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(bare);
  return false;
}

/** The host as it goes into a URL (`[::1]`). */
export function urlHost(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  return isIP(bare) === 6 ? `[${bare}]` : bare;
}
