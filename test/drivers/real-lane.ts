/** Glue between the real-CLI lane (`withRealCli`) and the stream-json drivers. */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RealCliContext } from "../../src/testing/real-cli/index.js";

/** The lane's child environment without the variables a provider binding must supply itself. */
export function laneEnv(ctx: RealCliContext, drop: readonly string[]): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...ctx.env };
  // Deleted, not set to undefined: the config's env would then remove what the binding supplies.
  for (const name of drop) delete env[name];
  return env;
}

/**
 * A wrapper that records each start of the real executable and then `exec`s it (same pid), so a
 * test can count spawns at the OS level.
 */
export async function countingWrapper(ctx: RealCliContext): Promise<{ executable: string; spawns(): Promise<number[]> }> {
  const dir = join(ctx.root, "wrapper");
  await mkdir(dir, { recursive: true });
  const log = join(dir, "spawns.log");
  const executable = join(dir, "cli");
  const target = [ctx.executable, ...ctx.args.slice(0, ctx.args.length - argsAfterPrefix(ctx))].map((a) => JSON.stringify(a)).join(" ");
  await writeFile(executable, `#!/bin/sh\necho "$$" >> ${JSON.stringify(log)}\nexec ${target} "$@"\n`);
  await chmod(executable, 0o755);
  return {
    executable,
    spawns: async () => {
      try {
        return (await readFile(log, "utf8")).split("\n").filter(Boolean).map(Number);
      } catch {
        return [];
      }
    },
  };
}

/** ctx.args = executable prefix (script path for JS CLIs) + protocol args; only the prefix is kept. */
function argsAfterPrefix(ctx: RealCliContext): number {
  return ctx.executable === process.execPath ? ctx.args.length - 1 : ctx.args.length;
}

/** A 1×1 PNG. */
export const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
