/**
 * Console screenshots saved as CI artifacts (artifacts/console/<name>.png) and checked to hold a
 * real render: a PNG, not tiny, and not a single flat colour (decoded here: zlib + the PNG row
 * filters, enough for the 8-bit RGB/RGBA images Chromium writes).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateSync } from "node:zlib";
import type { Page } from "playwright-core";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const SCREENSHOT_DIR = join(ROOT, "artifacts", "console");

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngSummary {
  width: number;
  height: number;
  /** Distinct RGB colours (capped at 4,096: enough to tell a render from a blank page). */
  colours: number;
  /** Share of pixels that have the most common colour. */
  dominantShare: number;
}

/** Decodes an 8-bit, non-interlaced RGB or RGBA PNG far enough to count its colours. */
export function summarizePng(png: Buffer): PngSummary {
  if (png.length < SIGNATURE.length || !png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG (bad signature)");
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset + 8 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const bitDepth = data[8];
      const colourType = data[9];
      const interlace = data[12];
      if (bitDepth !== 8 || interlace !== 0 || (colourType !== 2 && colourType !== 6)) {
        throw new Error(`unsupported PNG layout (bit depth ${bitDepth}, colour type ${colourType}, interlace ${interlace})`);
      }
      channels = colourType === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  if (width === 0 || height === 0 || idat.length === 0) throw new Error("PNG without IHDR or image data");
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error("PNG image data is truncated");
  const counts = new Map<number, number>();
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    unfilter(filter, line, previous, channels);
    for (let x = 0; x < stride; x += channels) {
      const colour = (line[x]! << 16) | (line[x + 1]! << 8) | line[x + 2]!;
      if (counts.size < 4096 || counts.has(colour)) counts.set(colour, (counts.get(colour) ?? 0) + 1);
    }
    previous = line;
  }
  const dominant = Math.max(...counts.values());
  return { width, height, colours: counts.size, dominantShare: dominant / (width * height) };
}

function unfilter(filter: number, line: Buffer, above: Buffer, bpp: number): void {
  for (let i = 0; i < line.length; i++) {
    const left = i >= bpp ? line[i - bpp]! : 0;
    const up = above[i]!;
    const upLeft = i >= bpp ? above[i - bpp]! : 0;
    let add: number;
    switch (filter) {
      case 0: add = 0; break;
      case 1: add = left; break;
      case 2: add = up; break;
      case 3: add = (left + up) >> 1; break;
      case 4: add = paeth(left, up, upLeft); break;
      default: throw new Error(`unknown PNG filter ${filter}`);
    }
    line[i] = (line[i]! + add) & 0xff;
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Minimums a console screenshot must meet to count as rendered. */
export const RENDERED = { minBytes: 8 * 1024, minColours: 24, maxDominantShare: 0.97 } as const;

/**
 * Saves a full-page screenshot as artifacts/console/<name>.png and returns the checks' inputs;
 * throws when it is not a rendered page.
 */
export async function saveConsoleScreenshot(page: Page, name: string): Promise<{ path: string; bytes: number; summary: PngSummary }> {
  const png = await page.screenshot({ fullPage: true, type: "png" });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, png);
  const summary = summarizePng(png);
  if (png.length < RENDERED.minBytes) throw new Error(`${name}.png is ${png.length} bytes: nothing rendered`);
  if (summary.colours < RENDERED.minColours || summary.dominantShare > RENDERED.maxDominantShare) {
    throw new Error(`${name}.png looks blank: ${summary.colours} colours, ${(summary.dominantShare * 100).toFixed(1)}% one colour`);
  }
  return { path, bytes: png.length, summary };
}
