/**
 * Finds the Codex executable: the configured one, else the native binary of the installed
 * `@openai/codex` package (resolved through its per-platform package, never the `bin/codex.js`
 * shim), else `codex` on PATH (a shim found there is followed to its native binary too).
 */
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/** How to install Codex, named when its executable is missing. */
export const CODEX_INSTALL = "npm install -g @openai/codex";

export interface ResolvedExecutable {
  /** Absolute path of what is spawned. */
  path: string;
  /** Directories to put first on the child's PATH (the package's bundled tools, e.g. ripgrep). */
  pathDirs: string[];
  source: "config" | "package" | "path";
  /** The version the package layout declares, when known. */
  packageVersion?: string;
}

interface PackageLayout {
  version?: string;
  entrypoint?: string;
  pathDir?: string;
}

const exe = process.platform === "win32" ? ".exe" : "";

function targetTriple(): string | undefined {
  const cpu = process.arch === "x64" ? "x86_64" : process.arch === "arm64" ? "aarch64" : undefined;
  if (cpu === undefined) return undefined;
  if (process.platform === "linux" || process.platform === "android") return `${cpu}-unknown-linux-musl`;
  if (process.platform === "darwin") return `${cpu}-apple-darwin`;
  if (process.platform === "win32") return `${cpu}-pc-windows-msvc`;
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (process.platform !== "win32") accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readLayout(vendorTripleDir: string): PackageLayout {
  try {
    return JSON.parse(readFileSync(join(vendorTripleDir, "codex-package.json"), "utf8")) as PackageLayout;
  } catch {
    return {};
  }
}

/** The native binary inside a `vendor/<triple>` dir, with the layout's PATH dir. */
function fromVendorDir(vendorTripleDir: string): Omit<ResolvedExecutable, "source"> | undefined {
  const layout = readLayout(vendorTripleDir);
  const binary = join(vendorTripleDir, layout.entrypoint ?? join("bin", `codex${exe}`));
  if (!isExecutableFile(binary)) return undefined;
  const pathDir = join(vendorTripleDir, layout.pathDir ?? "codex-path");
  const out: Omit<ResolvedExecutable, "source"> = { path: binary, pathDirs: existsSync(pathDir) ? [pathDir] : [] };
  if (layout.version !== undefined) out.packageVersion = layout.version;
  return out;
}

/** The native binary of an `@openai/codex` package whose package.json is at `packageJson`. */
function fromCodexPackage(packageJson: string): Omit<ResolvedExecutable, "source"> | undefined {
  const triple = targetTriple();
  if (triple === undefined) return undefined;
  const fromPackage = createRequire(packageJson);
  const dirs: string[] = [];
  try {
    dirs.push(join(dirname(fromPackage.resolve(`@openai/codex-${process.platform}-${process.arch}/package.json`)), "vendor", triple));
  } catch {
    // Not installed next to the main package.
  }
  dirs.push(join(dirname(packageJson), "vendor", triple));
  for (const dir of dirs) {
    const found = fromVendorDir(dir);
    if (found) return found;
  }
  return undefined;
}

function installedPackage(): Omit<ResolvedExecutable, "source"> | undefined {
  const bases = [import.meta.url, join(process.cwd(), "noop.js")];
  for (const base of bases) {
    let packageJson: string;
    try {
      packageJson = createRequire(base).resolve("@openai/codex/package.json");
    } catch {
      continue;
    }
    const found = fromCodexPackage(packageJson);
    if (found) return found;
  }
  return undefined;
}

function onPath(name: string, pathValue: string | undefined): string | undefined {
  const extensions = process.platform === "win32" ? ["", ".exe", ".cmd"] : [""];
  for (const dir of (pathValue ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const ext of extensions) {
      const candidate = join(dir, name + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** A `bin/codex.js` npm shim found on PATH or configured: follow it to its native binary. */
function throughShim(path: string): Omit<ResolvedExecutable, "source"> | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  if (!real.endsWith(".js")) return undefined;
  const packageJson = join(dirname(real), "..", "package.json");
  try {
    const name = (JSON.parse(readFileSync(packageJson, "utf8")) as { name?: string }).name;
    if (name !== "@openai/codex") return undefined;
  } catch {
    return undefined;
  }
  return fromCodexPackage(packageJson);
}

/**
 * Resolves the executable once. Undefined when nothing is found; spawning then reports
 * `executable_not_found`.
 */
export function resolveExecutable(configured: string | undefined, pathValue = process.env.PATH): ResolvedExecutable | undefined {
  if (configured !== undefined) {
    const path = isAbsolute(configured) || configured.includes("/") ? resolve(configured) : onPath(configured, pathValue);
    if (path === undefined) return undefined;
    const shim = throughShim(path);
    if (shim) return { ...shim, source: "config" };
    // A native binary inside a package layout still gets its bundled tools on PATH.
    const layoutDir = dirname(dirname(path));
    const layout = existsSync(join(layoutDir, "codex-package.json")) ? fromVendorDir(layoutDir) : undefined;
    if (layout && layout.path === path) return { ...layout, source: "config" };
    return { path, pathDirs: [], source: "config" };
  }
  const fromPackage = installedPackage();
  if (fromPackage) return { ...fromPackage, source: "package" };
  const found = onPath("codex", pathValue);
  if (found === undefined) return undefined;
  const shim = throughShim(found);
  return shim ? { ...shim, source: "path" } : { path: found, pathDirs: [], source: "path" };
}
