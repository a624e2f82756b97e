/** Temp workspaces and a tool-call helper for the built-in tools' tests. */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

import type { BuiltinTool, ToolOutcome, ToolRunContext } from "../../../../src/drivers/openai/tools/types.js";

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh directory holding `workspace/` and, beside it, `outside/` (removed after the test). */
export async function sandbox(): Promise<{ base: string; workspace: string; outside: string }> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "otools-")));
  made.push(base);
  const { mkdir } = await import("node:fs/promises");
  const workspace = join(base, "workspace");
  const outside = join(base, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  return { base, workspace, outside };
}

/** Runs `tool` with `args` in `workspace`. */
export function call(tool: BuiltinTool, workspace: string, args: unknown, extra: Partial<ToolRunContext> = {}): Promise<ToolOutcome> {
  return tool.run(args, { workspace, signal: new AbortController().signal, ...extra });
}
