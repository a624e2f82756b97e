import { describe, expect, it } from "vitest";
import { resolveToken, tokenFromHash, TOKEN_KEY } from "../../../console/src/token.js";

function place(hash: string, stored?: string) {
  const storage = new Map<string, string>(stored !== undefined ? [[TOKEN_KEY, stored]] : []);
  const replaced: string[] = [];
  return {
    storage,
    replaced,
    place: { hash, storage: { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v) }, replaceHash: (h: string) => void replaced.push(h) },
  };
}

describe("console token", () => {
  it("takes the token from the fragment, keeps other fragment parameters", () => {
    expect(tokenFromHash("#token=abc%2Bdef")).toEqual({ token: "abc+def", rest: "" });
    expect(tokenFromHash("#view=x&token=t1")).toEqual({ token: "t1", rest: "#view=x" });
    expect(tokenFromHash("")).toEqual({ rest: "" });
    expect(tokenFromHash("#token=")).toEqual({ rest: "" });
  });

  it("stores a fragment token for the tab and removes it from the address bar", () => {
    const t = place("#token=tok-1", "older");
    expect(resolveToken(t.place)).toBe("tok-1");
    expect(t.storage.get(TOKEN_KEY)).toBe("tok-1");
    expect(t.replaced).toEqual([""]);
  });

  it("falls back to the stored token and leaves the URL alone", () => {
    const t = place("", "stored");
    expect(resolveToken(t.place)).toBe("stored");
    expect(t.replaced).toEqual([]);
    expect(resolveToken(place("").place)).toBeUndefined();
  });
});
