/**
 * The package a user installs keeps the docs' promises. `npm pack` builds the tarball exactly as
 * it would be published; it is unpacked into a scratch consumer project outside the repository
 * whose `node_modules` holds only the locked production dependencies (what `npm install` of the
 * tarball resolves, taken from this checkout so the test needs no registry). Then a snippet of
 * each doc page and every example is compiled against it (strict, NodeNext) and the runnable ones
 * are run on this Node.
 *
 * Needs `dist/` (`npx tsc -p tsconfig.build.json`).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
  name: string;
  bin: Record<string, string>;
  repository?: unknown;
};

interface Snippet {
  /** Name of the compiled module. */
  name: string;
  page: string;
  /** The first ```ts block of the page containing this text. */
  containing: string;
  /** Declarations for what the fragment takes from its surrounding prose. */
  prelude?: string;
  /** Run it after compiling (snippets that need no provider CLI or account). */
  run?: boolean;
}

const SNIPPETS: Snippet[] = [
  { name: "readme-quick-start", page: "README.md", containing: "fakeDriver()", run: true },
  { name: "readme-threads", page: "README.md", containing: "startThread" },
  { name: "readme-openai", page: "README.md", containing: "local = createAgent(openai" },
  { name: "readme-resources", page: "README.md", containing: "hostTool({" },
  { name: "readme-sessions", page: "README.md", containing: "createSession(agent" },
  { name: "readme-server", page: "README.md", containing: "createAttachServer({ config" },
  { name: "server", page: "docs/server.md", containing: "createAttachServer, loadServerConfig" },
  { name: "sessions", page: "docs/sessions.md", containing: "tenant-42/chat-7" },
  { name: "driver-openai", page: "docs/drivers/openai.md", containing: "agent-adaptor/drivers/openai" },
  { name: "driver-openai-import", page: "docs/drivers/openai.md", containing: "importTranscript(agent" },
  {
    name: "api-threads",
    page: "docs/api.md",
    containing: "startThread",
    prelude: 'import { createAgent, sqliteThreadStore } from "agent-adaptor";\nimport { codex } from "agent-adaptor/drivers/codex";',
  },
  {
    name: "inputs",
    page: "docs/inputs.md",
    containing: "input.fromOpener",
    prelude:
      'import type { Agent, InputSourceStream } from "agent-adaptor";\n' +
      "declare const agent: Agent;\ndeclare const key: string;\n" +
      "declare const blobStore: { open(key: string, options: { signal: AbortSignal }): Promise<InputSourceStream> };",
  },
  { name: "testing-fake-driver", page: "docs/testing.md", containing: "fakeDriver({", run: true },
  { name: "testing-real-cli", page: "docs/testing.md", containing: "withRealCli" },
  { name: "threads-stores", page: "docs/threads.md", containing: "postgresThreadStore" },
  {
    name: "driver-acp",
    page: "docs/drivers/acp.md",
    containing: "agent-adaptor/drivers/acp",
    prelude: 'import type { ApprovalHandler } from "agent-adaptor";\ndeclare const onApproval: ApprovalHandler;',
  },
  {
    name: "driver-claude",
    page: "docs/drivers/claude.md",
    containing: "agent-adaptor/drivers/claude",
    prelude: 'import type { ApprovalHandler } from "agent-adaptor";\ndeclare const onApproval: ApprovalHandler;',
  },
  {
    name: "driver-codex",
    page: "docs/drivers/codex.md",
    containing: "agent-adaptor/drivers/codex",
    prelude: 'import type { ApprovalHandler } from "agent-adaptor";\ndeclare const onApproval: ApprovalHandler;',
  },
  { name: "bridges-sse-node", page: "docs/bridges.md", containing: "sseActionsNodeHandler, writeSSE" },
  { name: "bridges-sse-hono", page: "docs/bridges.md", containing: "honoSSE, type SessionEventLog" },
  { name: "bridges-ai-sdk", page: "docs/bridges.md", containing: "uiMessageStreamResponse" },
  { name: "bridges-ag-ui", page: "docs/bridges.md", containing: "agUiHandler({ agent, callOptions" },
  { name: "bridges-otel", page: "docs/bridges.md", containing: "observers: [await openTelemetry()]" },
  { name: "bridges-a2a", page: "docs/bridges.md", containing: "a2a, a2aServer" },
];

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

function snippetSource(snippet: Snippet): string {
  const block = tsBlocks(readFileSync(join(repo, snippet.page), "utf8")).find((text) => text.includes(snippet.containing));
  if (block === undefined) throw new Error(`${snippet.page} has no ts block containing ${snippet.containing}`);
  // `import` lines must come first; the prelude's declarations go after the page's own imports.
  const lines = block.split("\n");
  const firstCode = lines.findIndex((line) => line.trim() !== "" && !line.startsWith("import "));
  const imports = lines.slice(0, firstCode === -1 ? lines.length : firstCode).join("\n");
  const body = lines.slice(firstCode === -1 ? lines.length : firstCode).join("\n");
  return `${imports}\n${snippet.prelude ?? ""}\n${body}\nexport {};\n`;
}

/** The production dependencies the lock file resolves, by install path. */
function productionDependencies(): string[] {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  const paths = Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true && entry.devOptional !== true)
    .map(([path]) => path);
  // A package nested in another's node_modules comes with the link to its parent.
  return paths.filter((path) => !paths.some((parent) => path.startsWith(`${parent}/node_modules/`)));
}

let root: string;
let consumer: string;
let tarballFiles: string[];
const installed = () => join(consumer, "node_modules", manifest.name);

function node(args: string[], env: Record<string, string> = {}) {
  const out = spawnSync(process.execPath, args, { cwd: consumer, encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "aa-package-"));
  consumer = join(root, "consumer");
  mkdirSync(join(consumer, "node_modules"), { recursive: true });
  // --ignore-scripts: pack the dist/ under test instead of rebuilding it in `prepack`.
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", root], { cwd: repo, encoding: "utf8" }),
  ) as { filename: string; files: { path: string }[] }[];
  tarballFiles = packed[0]!.files.map((file) => file.path);
  execFileSync("tar", ["-xzf", join(root, packed[0]!.filename), "-C", root]);
  execFileSync("mv", [join(root, "package"), installed()]);
  for (const path of productionDependencies()) {
    mkdirSync(dirname(join(consumer, path)), { recursive: true });
    symlinkSync(join(repo, path), join(consumer, path), "dir");
  }
  // What a consumer's own tests add: vitest, for the testing snippets.
  symlinkSync(join(repo, "node_modules", "vitest"), join(consumer, "node_modules", "vitest"), "dir");
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
}, 120_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("has a repository field and ships the docs its README links to", () => {
    expect(manifest.repository).toBeDefined();
    expect(tarballFiles).toEqual(expect.arrayContaining(["README.md", "docs/api.md", "docs/testing.md", "docs/drivers/codex.md"]));
  });

  it("resolves every relative link of its markdown files to a shipped file", () => {
    const broken: string[] = [];
    for (const file of tarballFiles.filter((path) => path.endsWith(".md"))) {
      const text = readFileSync(join(installed(), file), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith("#")) continue;
        const path = resolve(dirname(join(installed(), file)), target!.split("#")[0]!);
        if (!existsSync(path)) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("ships no source maps pointing at unshipped sources", () => {
    const maps = tarballFiles.filter((path) => path.endsWith(".map"));
    const unresolved = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(join(installed(), map), "utf8")) as { sources: string[] };
      return sources.map((source) => resolve(dirname(join(installed(), map)), source)).filter((source) => !existsSync(source));
    });
    expect(unresolved).toEqual([]);
  });

  it("does not ship the type-only Codex protocol files as runtime modules", () => {
    const runtime = tarballFiles.filter((path) => path.startsWith("dist/drivers/codex/protocol/") && path.endsWith(".js"));
    expect(runtime).toEqual(["dist/drivers/codex/protocol/version.js"]);
  });

  it("declares pg an optional peer dependency, not a dependency", () => {
    const shipped = JSON.parse(readFileSync(join(installed(), "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(shipped.dependencies?.pg).toBeUndefined();
    expect(shipped.peerDependencies?.pg).toBeDefined();
    expect(shipped.peerDependenciesMeta?.pg?.optional).toBe(true);
  });
});

describe("a consumer project with the tarball installed", () => {
  beforeAll(() => {
    mkdirSync(join(consumer, "src"));
    for (const snippet of SNIPPETS) writeFileSync(join(consumer, "src", `${snippet.name}.ts`), snippetSource(snippet));
    for (const example of readdirSync(join(installed(), "examples")).filter((file) => file.endsWith(".ts"))) {
      writeFileSync(join(consumer, "src", `example-${example}`), readFileSync(join(installed(), "examples", example)));
    }
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          // DOM: hono's declarations (the bridges page's hono examples) name WebSocket event types.
          lib: ["ES2023", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          outDir: "out",
          rootDir: "src",
          types: ["node"],
          typeRoots: [join(repo, "node_modules", "@types")],
        },
        include: ["src"],
      }),
    );
  }, 60_000);

  it("compiles a snippet of every doc page and every example against the package (strict, NodeNext)", () => {
    const tsc = spawnSync(process.execPath, [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", consumer], {
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 150_000);

  it.each(SNIPPETS.filter((snippet) => snippet.run).map((snippet) => [snippet.page, snippet.name]))(
    "runs the snippet of %s (%s) on this Node",
    (_, name) => {
      const { code, stderr } = node([join("out", `${name}.js`)]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
    },
  );

  it.each(["quickstart", "approvals"])("runs examples/%s.ts on this Node once compiled", (example) => {
    const { code, stderr, stdout } = node([join("out", `example-${example}.js`)]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).not.toBe("");
  });

  it("postgresThreadStore without pg installed names the install command", () => {
    writeFileSync(
      join(consumer, "pg-missing.mjs"),
      `import { postgresThreadStore } from "agent-adaptor";
try {
  await postgresThreadStore({ connectionString: "postgres://127.0.0.1:1/none" });
  console.log("opened");
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}`,
    );
    const { stdout } = node(["pg-missing.mjs"]);
    const error = JSON.parse(stdout) as { code: string; message: string };
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("npm install pg");
  });

  it("`agent-adaptor demo` without the Codex CLI exits 2 and names the install command", () => {
    const { code, stdout, stderr } = node([join(installed(), manifest.bin["agent-adaptor"]!), "demo"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error config_invalid: .*`npm install --save-dev @openai\/codex`/);
  });

  it("`agent-adaptor --version` prints the packed version", () => {
    const { version } = JSON.parse(readFileSync(join(installed(), "package.json"), "utf8")) as { version: string };
    expect(node([join(installed(), manifest.bin["agent-adaptor"]!), "--version"]).stdout).toBe(`${version}\n`);
  });
});

/** Pids of the live (not zombie) processes in process group `group`. */
function groupMembers(group: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return state !== "Z" && Number(pgrp) === group;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** SSE frames of a response as they arrive: `{ event, data }`. */
async function* sseFrames(response: Response): AsyncGenerator<{ event?: string; data?: string }> {
  let buffer = "";
  for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame: { event?: string; data?: string } = {};
      for (const line of buffer.slice(0, cut).split("\n")) {
        if (line.startsWith("event: ")) frame.event = line.slice(7);
        else if (line.startsWith("data: ")) frame.data = line.slice(6);
      }
      buffer = buffer.slice(cut + 2);
      yield frame;
    }
  }
}

describe("`agent-adaptor serve` of the installed package, with no configuration", () => {
  let serve: ChildProcess | undefined;
  afterAll(() => {
    // Only when the test failed before the server stopped: nothing of it may outlive the file.
    if (serve?.pid !== undefined && serve.exitCode === null && serve.signalCode === null) process.kill(-serve.pid, "SIGKILL");
  });

  it("runs the offline demo agent: a prompt asks to write a file, allowed over HTTP it is written and the run completes; SIGTERM leaves no process", async () => {
    const stateDir = join(root, "serve-state");
    const { AGENT_ADAPTOR_TOKEN: _given, ...env } = process.env;
    // Its own process group, so every process it starts can be found after it exits.
    const child = spawn(process.execPath, [join(installed(), manifest.bin["agent-adaptor"]!), "serve", "--port", "0", "--json", "--state-dir", stateDir], {
      cwd: consumer,
      env: { ...env, HOME: join(root, "home") },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    serve = child;
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    try {
      const line = await new Promise<string>((done, fail) => {
        let out = "";
        child.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) done(out.slice(0, out.indexOf("\n")));
        });
        child.once("exit", () => fail(new Error(`serve exited before listening: ${stderr}`)));
      });
      const { url } = JSON.parse(line) as { url: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const token = readFileSync(join(stateDir, "token"), "utf8").trim();
      const api = (path: string, json?: unknown): Promise<Response> =>
        fetch(`${url}${path}`, {
          method: json === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        });

      const { agents } = (await (await api("/api/agents")).json()) as { agents: { name: string; workspace: string }[] };
      expect(agents.map((agent) => agent.name)).toEqual(["demo"]);
      const created = await api("/api/sessions", { agent: "demo" });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const abort = new AbortController();
      const events = await fetch(`${url}/api/sessions/${id}/events`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
      expect((await api(`/api/sessions/${id}/submit`, { text: "write the demo file" })).status).toBe(202);

      const seen: string[] = [];
      for await (const frame of sseFrames(events)) {
        if (frame.event === undefined) continue;
        seen.push(frame.event);
        if (frame.event === "approval.requested") {
          const { requestId } = JSON.parse(frame.data!) as { requestId: string };
          expect((await api(`/api/sessions/${id}/approvals/${encodeURIComponent(requestId)}`, { decision: "allow" })).status).toBe(200);
        }
        if (frame.event === "run.failed") throw new Error(`the demo run failed: ${frame.data}`);
        if (frame.event === "run.completed") break;
      }
      abort.abort();
      expect(seen).toEqual(expect.arrayContaining(["approval.requested", "tool.completed", "message.completed", "run.completed"]));
      expect(readFileSync(join(agents[0]!.workspace, "hello.txt"), "utf8")).toMatch(/^hello from the demo agent/);
    } finally {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(groupMembers(child.pid!)).toEqual([]);
    }
  }, 60_000);
});
