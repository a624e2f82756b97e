import { describe, expect, it } from "vitest";

import { inferMediaType, mediaTypeMatches, normalizeMediaType, sanitizeName, MAX_NAME_BYTES } from "../../src/input/index.js";
import { contentMatchesMediaType, isMediaTypePattern, mediaTypeFitsKind } from "../../src/input/media-type.js";

describe("media types", () => {
  it("normalizes type/subtype and refuses anything else", () => {
    expect(normalizeMediaType(" Image/PNG ")).toBe("image/png");
    expect(normalizeMediaType("application/vnd.openxmlformats-officedocument.wordprocessingml.document")).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    for (const bad of ["image", "image/", "/png", "image/png; q=1", "image/*", "ima ge/png", "", "a/b/c"]) expect(normalizeMediaType(bad), bad).toBeUndefined();
  });

  it("matches exact, type/* and */* patterns, case-insensitively", () => {
    expect(mediaTypeMatches("image/png", "image/*")).toBe(true);
    expect(mediaTypeMatches("image/png", "IMAGE/PNG")).toBe(true);
    expect(mediaTypeMatches("image/png", "*/*")).toBe(true);
    expect(mediaTypeMatches("image/png", "image/jpeg")).toBe(false);
    expect(mediaTypeMatches("imagex/png", "image/*")).toBe(false);
    expect(mediaTypeMatches("audio/png", "image/*")).toBe(false);
    expect(isMediaTypePattern("image/*")).toBe(true);
    expect(isMediaTypePattern("*/png")).toBe(false);
  });

  it("infers from a small extension table", () => {
    const table: [string, string | undefined][] = [
      ["a.png", "image/png"], ["a.JPG", "image/jpeg"], ["a.jpeg", "image/jpeg"], ["a.gif", "image/gif"], ["a.webp", "image/webp"],
      ["a.pdf", "application/pdf"], ["a.txt", "text/plain"], ["a.md", "text/markdown"], ["a.json", "application/json"],
      ["a.csv", "text/csv"], ["a.mp3", "audio/mpeg"], ["a.wav", "audio/wav"], ["a.ogg", "audio/ogg"], ["a.m4a", "audio/mp4"],
      ["a.webm", "audio/webm"], ["a.exe", undefined], ["noext", undefined], ["trailing.", undefined], ["a.constructor", undefined],
    ];
    for (const [name, type] of table) expect(inferMediaType(name), name).toBe(type);
  });

  it("fits kinds and checks signatures", () => {
    expect(mediaTypeFitsKind("image", "image/png")).toBe(true);
    expect(mediaTypeFitsKind("image", "application/pdf")).toBe(false);
    expect(mediaTypeFitsKind("audio", "audio/ogg")).toBe(true);
    expect(mediaTypeFitsKind("file", "image/png")).toBe(true);
    expect(contentMatchesMediaType("image/jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(true);
    expect(contentMatchesMediaType("image/gif", Buffer.from("GIF89a..."))).toBe(true);
    expect(contentMatchesMediaType("image/webp", Buffer.from("RIFF\0\0\0\0WEBP"))).toBe(true);
    expect(contentMatchesMediaType("image/webp", Buffer.from("RIFF\0\0\0\0WAVE"))).toBe(false);
    expect(contentMatchesMediaType("text/plain", Buffer.from([0xff, 0xd8]))).toBe(true);
  });
});

describe("names", () => {
  it("strips separators, controls, bidi overrides and leading dots; bounds the length; keeps the extension", () => {
    expect(sanitizeName("a/b\\c.txt")).toBe("a_b_c.txt");
    expect(sanitizeName("..hidden")).toBe("hidden");
    expect(sanitizeName("../..")).toBe("_");
    expect(sanitizeName("tab\there\u0000.png")).toBe("tab here.png");
    expect(sanitizeName("gnp.\u202eexe")).toBe("gnp.exe");
    expect(sanitizeName("   ")).toBe("input");
    expect(sanitizeName("")).toBe("input");
    const long = sanitizeName(`${"x".repeat(500)}.jpeg`);
    expect(Buffer.byteLength(long)).toBe(MAX_NAME_BYTES);
    expect(long.endsWith(".jpeg")).toBe(true);
    const multibyte = sanitizeName(`${"😀".repeat(100)}.md`);
    expect(Buffer.byteLength(multibyte)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(multibyte.endsWith("😀.md")).toBe(true);
    expect(sanitizeName("ünïcödé.txt".normalize("NFD"))).toBe("ünïcödé.txt".normalize("NFC"));
  });
});
