/**
 * The host dies mid-run on a real driver family (Codex, stream-json, ACP, over their fake
 * providers): a host process (the TypeScript sources run by jiti) drives a session on SQLite with a
 * long turn streaming, and is SIGKILLed. No process of the provider's group outlives it (the
 * reaper's pipe closes with the host), and a new host opening the session sees the interrupted run
 * recorded as `host_restart`, never replayed, and runs the next message to completion.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

import { createAgent, openSession, sqliteSessionStore, sqliteThreadStore, type Driver } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { groupMembers } from "../chaos/processes.js";
import { firstLine } from "../process/helpers.js";
import { closeInOrder, logOf, noticesOf, openWhenReleased, until } from "../session/harness.js";
import { fakeClaudeCli, scratch } from "./helpers.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const JITI = join(REPO, "node_modules/.bin/jiti");
const { root } = scratch("aa-scenario-host-death-");
const fake = fakeClaudeCli();

const fixture = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** A provider executable that records its pid (its process group: drivers spawn each in its own) and execs the fake. The host has the same function. */
function pidRecording(dir: string, name: string, command: string[]): { executable: string; pidFile: string } {
  const executable = join(dir, name);
  const pidFile = join(dir, `${name}.pid`);
  writeFileSync(executable, `#!/bin/sh\necho $$ > '${pidFile}'\nexec ${command.map((part) => `'${part}'`).join(" ")} "$@"\n`);
  chmodSync(executable, 0o755);
  return { executable, pidFile };
}

interface Family {
  name: "codex" | "claude" | "acp";
  /** A prompt whose turn streams for seconds. */
  long: string;
  short: string;
}
const FAMILIES: Family[] = [
  { name: "codex", long: "HANG on", short: "say hello" },
  { name: "claude", long: "[[slow]] go", short: "say hello" },
  { name: "acp", long: "SLOW go", short: "say hello" },
];

/** The same driver in the host and in this process (the source is shared as text). */
const DRIVER_SOURCE = `
function familyDriver(family, dir, cliRoot) {
  if (family === "codex") {
    const { executable, pidFile } = pidRecording(dir, "codex", [process.execPath, ${JSON.stringify(fixture("../drivers/codex/fixtures/fake-codex.mjs"))}]);
    return { driver: codex({ executable, home: dir }), pidFile };
  }
  if (family === "claude") {
    const { executable, pidFile } = pidRecording(dir, "claude", [cliRoot.executable]);
    return { driver: claude({ executable, configDir: cliRoot.configDir, env: { ANTHROPIC_API_KEY: "sk-fake-host-death-0123456789" } }), pidFile };
  }
  const { executable, pidFile } = pidRecording(dir, "fake-acp-agent", [process.execPath, ${JSON.stringify(fixture("../drivers/acp/fixtures/fake-agent.mjs"))}]);
  return { driver: acp({ command: executable }), pidFile };
}
`;

function familyDriver(family: string, dir: string, fake: { executable: string; configDir: string }): { driver: Driver; pidFile: string } {
  // Kept in step with DRIVER_SOURCE, which the host evaluates.
  if (family === "codex") {
    const { executable, pidFile } = pidRecording(dir, "codex", [process.execPath, fixture("../drivers/codex/fixtures/fake-codex.mjs")]);
    return { driver: codex({ executable, home: dir }), pidFile };
  }
  if (family === "claude") {
    const { executable, pidFile } = pidRecording(dir, "claude", [fake.executable]);
    return { driver: claude({ executable, configDir: fake.configDir, env: { ANTHROPIC_API_KEY: "sk-fake-host-death-0123456789" } }), pidFile };
  }
  const { executable, pidFile } = pidRecording(dir, "fake-acp-agent", [process.execPath, fixture("../drivers/acp/fixtures/fake-agent.mjs")]);
  return { driver: acp({ command: executable }), pidFile };
}

const src = (path: string) => JSON.stringify(join(REPO, "src", path));
const HOST = join(root, "host.ts");
writeFileSync(
  HOST,
  `
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAgent, createSession, sqliteSessionStore, sqliteThreadStore } from ${src("index.js")};
import { acp } from ${src("drivers/acp/index.js")};
import { claude } from ${src("drivers/claude/index.js")};
import { codex } from ${src("drivers/codex/index.js")};
function pidRecording(dir, name, command) {
  const executable = join(dir, name);
  const pidFile = join(dir, name + ".pid");
  writeFileSync(executable, "#!/bin/sh\\necho $$ > '" + pidFile + "'\\nexec " + command.map((part) => "'" + part + "'").join(" ") + ' "$@"\\n');
  chmodSync(executable, 0o755);
  return { executable, pidFile };
}
${DRIVER_SOURCE}
const config = JSON.parse(process.argv[2]);
const { driver, pidFile } = familyDriver(config.family, config.dir, config.cli);
// Short TTLs (renewed while this host lives), so the next host takes over seconds after the kill.
const agent = createAgent(driver, { workspace: config.workspace, threadStore: sqliteThreadStore(config.db), threadLeaseTtlMs: 1500 });
const session = await createSession(agent, { id: config.id, store: sqliteSessionStore({ path: config.db }), ownerTtlMs: 2000 });
await session.submit(config.prompt);
for await (const entry of session.events()) {
  if (entry.event.type === "message.delta") break;
}
process.stdout.write(JSON.stringify({ pgid: Number(readFileSync(pidFile, "utf8")), runId: session.status().inFlight?.runId }) + "\\n");
setInterval(() => {}, 1 << 30);
`,
);

describe.each(FAMILIES)("the host is SIGKILLed mid-run: $name", (family) => {
  it("leaves no provider process, and the next host records host_restart, never replays, runs the next message", async () => {
    const dir = mkdtempSync(join(root, `${family.name}-`));
    const workspace = family.name === "claude" ? fake.cli.workspace : join(dir, "ws");
    mkdirSync(workspace, { recursive: true });
    const db = join(dir, "state.db");
    const config = { family: family.name, dir, cli: { executable: fake.cli.executable, configDir: fake.cli.configDir }, workspace, db, id: `ses-${family.name}`, prompt: family.long };
    const host = spawn(JITI, [HOST, JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    host.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<string>((resolve) => host.once("exit", (code, signal) => resolve(signal ?? `code ${code}`)));
    let ready: { pgid: number; runId: string };
    try {
      ready = JSON.parse(await firstLine(host.stdout!)) as { pgid: number; runId: string };
    } catch (error) {
      host.kill("SIGKILL");
      throw new Error(`the host did not get ready: ${String(error)}\n${stderr}`);
    }
    expect(groupMembers([ready.pgid]).length).toBeGreaterThan(0);
    host.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const deadline = Date.now() + 5000;
    while (groupMembers([ready.pgid]).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(groupMembers([ready.pgid])).toEqual([]);

    mkdirSync(join(dir, "again"), { recursive: true });
    const { driver } = familyDriver(family.name, join(dir, "again"), fake.cli);
    const threadStore = sqliteThreadStore(db);
    const store = sqliteSessionStore({ path: db });
    const agent = createAgent(driver, { workspace, threadStore });
    try {
      const session = await openWhenReleased(() => openSession(agent, config.id, { store }));
      const before = session.status().lastSeq;
      let log = await logOf(session);
      expect(noticesOf(log, "session.run_interrupted")).toEqual([{ type: "session.run_interrupted", runId: ready.runId, code: "host_restart" }]);
      await session.submit(family.short);
      await until(async () => {
        if (session.state() === "idle" && session.status().lastSeq > before) {
          log = await logOf(session);
          if (log.some((entry) => entry.seq > before && entry.event.type === "run.completed")) return true;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
        return false;
      });
      const after = log.filter((entry) => entry.seq > before);
      // One run after the restart, the new message's: the interrupted prompt is not sent again.
      expect(after.filter((entry) => entry.event.type === "run.started")).toHaveLength(1);
      expect(after.filter((entry) => entry.event.type === "run.completed")).toHaveLength(1);
      await session.close();
    } finally {
      await closeInOrder(agent, store, threadStore);
    }
  }, 120_000);
});
