/**
 * Installs the fake stream-json CLI into a temporary directory: `bin/claude` (a shell wrapper that
 * execs Node, like a native binary) or `bin/codebuddy.mjs` (a JavaScript entry the driver runs
 * with Node, like the real bundle). Each install has its own workspace, config dir and log.
 */
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type FakeDialect = "claude" | "codebuddy";

export interface FakeLogEntry {
  pid: number;
  event: string;
  [key: string]: unknown;
}

export interface FakeCli {
  root: string;
  executable: string;
  workspace: string;
  configDir: string;
  logFile: string;
  /** Everything the fake processes logged, in order. */
  log(): Promise<FakeLogEntry[]>;
  spawns(): Promise<FakeLogEntry[]>;
  cleanup(): Promise<void>;
}

const SOURCE = new URL("./fake-cli.mjs", import.meta.url);

export async function installFakeCli(dialect: FakeDialect): Promise<FakeCli> {
  const root = await realpath(await mkdtemp(join(tmpdir(), `agent-adaptor-fake-${dialect}-`)));
  const bin = join(root, "bin");
  const workspace = join(root, "workspace");
  const configDir = join(root, "config");
  for (const dir of [bin, workspace, configDir]) await mkdir(dir, { recursive: true });
  const source = await readFile(SOURCE, "utf8");
  const script = join(bin, "fake-cli.mjs");
  await writeFile(script, `const DIALECT = ${JSON.stringify(dialect)};\n${source}`);
  let executable: string;
  if (dialect === "claude") {
    executable = join(bin, "claude");
    await writeFile(executable, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(script)} "$@"\n`);
    await chmod(executable, 0o755);
  } else {
    executable = join(bin, "codebuddy.mjs");
    await writeFile(executable, `import ${JSON.stringify(`./fake-cli.mjs`)};\n`);
  }
  const logFile = join(root, "fake.log");
  const log = async (): Promise<FakeLogEntry[]> => {
    try {
      return (await readFile(logFile, "utf8"))
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as FakeLogEntry);
    } catch {
      return [];
    }
  };
  return {
    root,
    executable,
    workspace,
    configDir,
    logFile,
    log,
    spawns: async () => (await log()).filter((e) => e.event === "spawn"),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
