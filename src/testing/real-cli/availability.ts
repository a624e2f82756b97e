/**
 * Whether a real CLI can run here: its package is installed, its platform payload is present,
 * and its version command succeeds in an isolated home (some CLIs create their config dir even
 * for `--version`, so the probe never runs against the user's real home).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildChildEnv } from "../../process/index.js";
import { findPackageDir, packageVersion } from "./locate.js";
import { realCliSpec, type LocatedExecutable, type RealCliName } from "./registry.js";
import { probeEnv } from "./settings.js";

/** Result of {@link realCliAvailability}. */
export type RealCliAvailability =
  | {
      readonly available: true;
      readonly name: RealCliName;
      /** The CLI's entry (native binary or JavaScript file). */
      readonly executable: string;
      /** What the version command printed (first line). */
      readonly version: string;
      /** Version of the npm package that carries it. */
      readonly packageVersion: string | undefined;
      readonly located: LocatedExecutable;
    }
  | { readonly available: false; readonly name: RealCliName; readonly reason: string };

/**
 * Environment switch for the lane: `skip` (or `0`, `off`) reports every CLI unavailable;
 * `require` makes the vitest helper fail instead of skip when a CLI is unavailable.
 */
export const REAL_CLI_ENV = "AGENT_ADAPTOR_REAL_CLI";

/** The lane mode from {@link REAL_CLI_ENV}. */
export function realCliMode(): "auto" | "skip" | "require" {
  const value = (process.env[REAL_CLI_ENV] ?? "").trim().toLowerCase();
  if (value === "skip" || value === "0" || value === "off" || value === "false") return "skip";
  if (value === "require" || value === "1" || value === "on" || value === "true") return "require";
  return "auto";
}

const cache = new Map<RealCliName, RealCliAvailability>();

/** Checks (once per process) whether `name` can run; never throws. */
export function realCliAvailability(name: RealCliName): RealCliAvailability {
  const cached = cache.get(name);
  if (cached) return cached;
  const result = probe(name);
  cache.set(name, result);
  return result;
}

function probe(name: RealCliName): RealCliAvailability {
  const spec = realCliSpec(name);
  if (realCliMode() === "skip") return { available: false, name, reason: `disabled by ${REAL_CLI_ENV}=skip` };
  if (findPackageDir(spec.packageName) === undefined) {
    const note = spec.absenceNote ? ` (${spec.absenceNote})` : "";
    return { available: false, name, reason: `package ${spec.packageName} is not installed${note}` };
  }
  let located: LocatedExecutable | undefined;
  try {
    located = spec.locate();
  } catch (error) {
    return { available: false, name, reason: `cannot locate the executable: ${(error as Error).message}` };
  }
  if (located === undefined) {
    return {
      available: false,
      name,
      reason: `package ${spec.packageName} is installed but has no executable for ${process.platform}-${process.arch} (optional platform package missing?)`,
    };
  }
  const root = mkdtempSync(join(tmpdir(), "agent-adaptor-probe-"));
  try {
    const dirs = { home: join(root, "home"), tmp: join(root, "tmp"), workspace: join(root, "workspace") };
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    const probeWith = spec.locateVersionCommand?.() ?? located;
    const run = spawnSync(probeWith.command, [...probeWith.prefixArgs, ...spec.versionArgs], {
      cwd: dirs.workspace,
      env: buildChildEnv(process.env, { env: probeEnv(dirs, probeWith.pathDirs) }),
      encoding: "utf8",
      timeout: 60_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (run.error) return { available: false, name, reason: `\`${spec.versionArgs.join(" ")}\` failed: ${run.error.message}` };
    if (run.status !== 0) {
      const stderr = run.stderr.trim().split("\n").slice(-3).join(" | ");
      return {
        available: false,
        name,
        reason: `\`${spec.versionArgs.join(" ")}\` exited with ${String(run.status ?? run.signal)}: ${stderr || "(no stderr)"}`,
      };
    }
    // Some CLIs (pi) print their version on stderr.
    const printed = (run.stdout.trim() || run.stderr.trim()).split("\n")[0]?.trim() ?? "";
    const fromPackage = packageVersion(spec.packageName);
    const version = spec.versionFromPackage ? `${spec.packageName}@${fromPackage ?? "unknown"}` : printed;
    return {
      available: true,
      name,
      executable: located.entry,
      version,
      packageVersion: fromPackage,
      located,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
