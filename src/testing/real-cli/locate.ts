/**
 * Finds provider packages and their executables in `node_modules`, without going through the
 * packages' `exports` maps (several CLIs do not export `package.json`) and without running
 * their Node wrappers.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

/** Directory of an installed package, searched the way Node resolves it from here and from the cwd. */
export function findPackageDir(packageName: string): string | undefined {
  const bases = [...(require.resolve.paths(packageName) ?? []), join(process.cwd(), "node_modules")];
  for (const base of bases) {
    const dir = join(base, packageName);
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  return undefined;
}

/** `version` from an installed package's package.json. */
export function packageVersion(packageName: string): string | undefined {
  const dir = findPackageDir(packageName);
  if (dir === undefined) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown };
    return typeof parsed.version === "string" ? parsed.version : undefined;
  } catch {
    return undefined;
  }
}

/** A file inside an installed package, if both exist. */
export function fileInPackage(packageName: string, ...segments: string[]): string | undefined {
  const dir = findPackageDir(packageName);
  if (dir === undefined) return undefined;
  const file = join(dir, ...segments);
  return existsSync(file) ? file : undefined;
}

/** Whether this Linux uses musl (no glibc runtime reported by the process). */
export function isMuslLinux(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

/** `x64`/`arm64` on the platforms the CLIs publish binaries for, else undefined. */
export function supportedArch(): "x64" | "arm64" | undefined {
  return process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
}
