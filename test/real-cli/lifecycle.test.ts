/**
 * `withRealCli` itself: isolation of the CLI's environment and clean-up on every ending.
 * Uses the first available CLI; skipped with a reason when none is installed.
 */
import { existsSync } from "node:fs";
import { expect, it } from "vitest";
import {
  REAL_CLI_NAMES,
  RealCliUnavailableError,
  realCliAvailability,
  withRealCli,
  type CliProcess,
  type RealCliContext,
  type RealCliName,
} from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "./helpers.js";

const cli: RealCliName = REAL_CLI_NAMES.find((n) => realCliAvailability(n).available) ?? "codex";
const script = { turns: [{ reply: { text: "unused" } }] };

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

describeRealCli(cli, () => {
  it("gives the CLI an isolated home, temp dir and workspace and an env that inherits no secrets", async () => {
    await withRealCli(cli, script, async (ctx) => {
      expect(ctx.env.HOME).toBe(ctx.home);
      expect(ctx.env.TMPDIR).toBe(ctx.tmp);
      expect(ctx.home.startsWith(ctx.root)).toBe(true);
      expect(ctx.workspace.startsWith(ctx.root)).toBe(true);
      // CODEX_HOME (and every other config dir) must not be under the child's TMPDIR.
      expect(ctx.configDir.startsWith(ctx.tmp)).toBe(false);
      expect(ctx.configDir.startsWith(ctx.home)).toBe(true);
      // Only the scrubbed allowlist is inherited (vitest's own variables are a witness).
      expect(Object.keys(ctx.env).filter((k) => k.startsWith("VITEST"))).toEqual([]);
      expect(ctx.env.NODE_OPTIONS).toBeUndefined();
      expect(ctx.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });
  });

  it("stops processes, closes the server and removes its dirs when the callback throws", async () => {
    let seen: { ctx: RealCliContext; proc: CliProcess } | undefined;
    await expect(
      withRealCli(cli, script, async (ctx) => {
        const proc = await ctx.spawn();
        seen = { ctx, proc };
        throw new Error("callback failed on purpose");
      }),
    ).rejects.toThrow("callback failed on purpose");
    const { ctx, proc } = seen as { ctx: RealCliContext; proc: CliProcess };
    expect(proc.pid).toBeTypeOf("number");
    expect(existsSync(ctx.root)).toBe(false);
    // The CLI exited (with a code or by a signal), stopped by withRealCli.
    expect(proc.exitStatus).toSatisfy((exit: CliProcess["exitStatus"]) => exit !== undefined && (exit.code !== null || exit.signal !== null));
    expect(groupAlive(proc.pid as number)).toBe(false);
    await expect(fetch(`${ctx.server.url}/v1/models`)).rejects.toThrow();
  });
});

it("rejects with the reason when a CLI is unavailable", async () => {
  const missing = REAL_CLI_NAMES.find((n) => !realCliAvailability(n).available);
  if (missing === undefined) return; // every CLI is installed here: nothing to check
  const availability = realCliAvailability(missing);
  const error = await withRealCli(missing, script, async () => "unreachable").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RealCliUnavailableError);
  expect((error as RealCliUnavailableError).reason).toBe(availability.available ? "" : availability.reason);
});
