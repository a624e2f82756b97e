/**
 * Installs the fake providers of the SDK benchmark into a temporary directory: `bin/claude` and
 * `bin/codex`, shell wrappers that `exec` this Node on the fixture scripts (so the spawned pid is
 * the provider's pid, as with a native binary), plus a workspace, a Claude config dir and a
 * Codex home. Every side of the benchmark spawns the same wrappers.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface FakeInstall {
  root: string;
  claude: string;
  codex: string;
  workspace: string;
  claudeConfigDir: string;
  codexHome: string;
  /** A fresh path for one run's pid file. */
  pidFile(): string;
  remove(): void;
}

/** bench/sdk/fixtures in the source tree (the .mjs fixtures are not compiled into dist-bench). */
function fixturesDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // Compiled: <root>/dist-bench/bench/sdk; run from source: <root>/bench/sdk.
  const root = here.includes("dist-bench") ? resolve(here, "../../..") : resolve(here, "../..");
  return join(root, "bench", "sdk", "fixtures");
}

export function installFakes(): FakeInstall {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-adaptor-sdkbench-")));
  const bin = join(root, "bin");
  const dirs = { workspace: join(root, "workspace"), claudeConfigDir: join(root, "claude-config"), codexHome: join(root, "codex-home"), pids: join(root, "pids") };
  for (const dir of [bin, ...Object.values(dirs)]) mkdirSync(dir, { recursive: true });
  const wrapper = (name: string, script: string): string => {
    const path = join(bin, name);
    writeFileSync(path, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(fixturesDir(), script))} "$@"\n`);
    chmodSync(path, 0o755);
    return path;
  };
  let runs = 0;
  return {
    root,
    claude: wrapper("claude", "fake-claude.mjs"),
    codex: wrapper("codex", "fake-codex.mjs"),
    workspace: dirs.workspace,
    claudeConfigDir: dirs.claudeConfigDir,
    codexHome: dirs.codexHome,
    pidFile: () => join(dirs.pids, `${++runs}.pid`),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
