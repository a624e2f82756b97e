/**
 * The API token: given once in the URL fragment (`#token=…`, never sent to the server), then kept
 * in sessionStorage for this tab and removed from the address bar and history.
 */

/** The token in a location hash, and the hash without it ("" when nothing else was there). */
export function tokenFromHash(hash: string): { token?: string; rest: string } {
  const params = new URLSearchParams(hash.startsWith("#") ? hash.slice(1) : hash);
  const token = params.get("token") ?? undefined;
  params.delete("token");
  const rest = params.toString();
  return { ...(token !== undefined && token !== "" ? { token } : {}), rest: rest === "" ? "" : `#${rest}` };
}

export const TOKEN_KEY = "agent-adaptor.token";

/** The part of `sessionStorage` used. */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export interface TokenPlace {
  hash: string;
  storage: TokenStorage;
  /** Replace the current URL's hash without a navigation or a history entry. */
  replaceHash(hash: string): void;
}

/** Take the token from the hash (storing it and clearing the hash), else from storage. */
export function resolveToken(place: TokenPlace): string | undefined {
  const { token, rest } = tokenFromHash(place.hash);
  if (token !== undefined) {
    place.storage.setItem(TOKEN_KEY, token);
    place.replaceHash(rest);
    return token;
  }
  return place.storage.getItem(TOKEN_KEY) ?? undefined;
}
