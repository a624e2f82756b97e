/**
 * Construction resources are checked at createAgent: what no provider could be given fails with a
 * ConfigError naming the resource, before anything starts, and never quoting a value.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, type AgentOptions } from "../../src/index.js";
import { ConfigError } from "../../src/errors/index.js";
import { HOST_TOOLS_SERVER_NAME } from "../../src/resources/host-tools/server-name.js";
import { checkSkills, MAX_SKILL_ENTRIES } from "../../src/resources/check-skills.js";
import { fakeDriver } from "../../src/testing/index.js";

let root: string;
let skillDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "aa-resources-"));
  skillDir = join(root, "skills", "pdf-tools");
  await mkdir(skillDir, { recursive: true });
  await writeFile(join(skillDir, "SKILL.md"), "---\nname: pdf-tools\ndescription: Works with PDF files.\n---\nBody\n");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The ConfigError createAgent throws for `options` on a driver that delivers everything (nothing runs). */
function refusal(options: AgentOptions): ConfigError {
  const driver = fakeDriver({ process: true });
  try {
    createAgent(driver, options);
  } catch (error) {
    expect(driver.probe.calls).toEqual({ inspect: 0, prepare: 0, run: 0, close: 0 });
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("createAgent accepted the options");
}

async function accepted(options: AgentOptions): Promise<void> {
  const agent = createAgent(fakeDriver(), options);
  await agent.close();
}

describe("MCP servers", () => {
  it("accepts the names every provider takes as a server key", async () => {
    await accepted({ mcp: [{ name: "docs_v2-A", command: "node" }, { name: "x".repeat(64), url: "https://example.test/mcp", headers: { "X-Api-Key": "k" } }] });
  });

  it.each([
    ["a space", "my server", /^mcp server "my server": the name must be 1-64 ASCII letters, digits, "_" or "-"$/],
    ["a dot", "a.b", /^mcp server "a\.b": the name must be/],
    ["a non-ASCII letter", "dé", /the name must be/],
    ["more than 64 characters", "x".repeat(65), /the name must be/],
    ["the host tools' reserved name", HOST_TOOLS_SERVER_NAME, /is reserved for the agent's host tools/],
  ])("refuses a name with %s", (_what, name, message) => {
    expect(refusal({ mcp: [{ name, command: "node" }] }).message).toMatch(message);
  });

  it("refuses a blank command, a NUL in an argument, and malformed env or header entries without quoting them", () => {
    const secret = "canary-value-Zq81";
    expect(refusal({ mcp: [{ name: "a", command: "  " }] }).message).toBe('mcp server "a": command must be a non-empty path or name');
    expect(refusal({ mcp: [{ name: "a", command: "node", args: ["ok", "x\0y"] }] }).message).toBe('mcp server "a": args[1] holds a NUL character');
    const cases: [AgentOptions, string][] = [
      [{ mcp: [{ name: "a", command: "node", env: { OK: "1", [`TOKEN=${secret}`]: "x" } }] }, 'mcp server "a": env entry 2 has no environment variable name'],
      [{ mcp: [{ name: "a", command: "node", env: { TOKEN: `${secret}\0` } }] }, 'mcp server "a": the value of env TOKEN holds a NUL character'],
      [{ mcp: [{ name: "a", url: "https://example.test/", headers: { [`Bearer ${secret}`]: "x" } }] }, 'mcp server "a": header entry 1 has no HTTP header name'],
      [{ mcp: [{ name: "a", url: "https://example.test/", headers: { Authorization: `Bearer ${secret}\r\nX-Injected: 1` } }] }, 'mcp server "a": the value of header Authorization holds a line break or NUL'],
      [{ mcp: [{ name: "a", url: `https://user:${secret}@example.test/` }] }, 'mcp server "a": put credentials in headers, not in the url'],
    ];
    for (const [options, message] of cases) {
      const error = refusal(options);
      expect(error.message).toBe(message);
      expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(secret);
    }
  });
});

describe("skills", () => {
  it("accepts a directory skill and an inline one, with the description given or stated by SKILL.md", async () => {
    await accepted({
      skills: [
        { name: "pdf-tools", path: skillDir },
        { name: "greeter", description: "Greets.", files: { "SKILL.md": "Say hello.", "docs/tone.md": "warm" } },
        { name: "stated", files: { "SKILL.md": "---\ndescription: >\n  Folded text.\n---\nBody" } },
      ],
    });
  });

  it.each([
    ["an uppercase name", { name: "PDF", path: "/x" }, /^skill "PDF": invalid name: expected lowercase letters/],
    ["a path-like name", { name: "../up", files: { "SKILL.md": "x" } }, /^skill "\.\.\/up": invalid name/],
    ["an empty description", { name: "a", description: " ", files: { "SKILL.md": "x" } }, /^skill "a": invalid description: expected a non-empty description$/],
    ["an overlong description", { name: "a", description: "x".repeat(1025), files: { "SKILL.md": "x" } }, /invalid description: expected at most 1024 characters/],
    ["no description anywhere", { name: "a", files: { "SKILL.md": "---\nname: a\n---\nBody" } }, /^skill "a": SKILL\.md states no description in its frontmatter: give the skill a description$/],
    ["inline files without SKILL.md", { name: "a", description: "d", files: { "README.md": "x" } }, /^skill "a": files must hold "SKILL\.md"$/],
    ["an inline path leaving the skill", { name: "a", description: "d", files: { "SKILL.md": "x", "../evil.md": "x" } }, /^skill "a": file "\.\.\/evil\.md": expected a path inside the skill directory$/],
    ["an absolute inline path", { name: "a", description: "d", files: { "SKILL.md": "x", "/etc/passwd": "x" } }, /file "\/etc\/passwd": expected a relative path/],
    ["two inline paths naming one file", { name: "a", description: "d", files: { "SKILL.md": "x", "./SKILL.md": "y" } }, /files "SKILL\.md" and "\.\/SKILL\.md" name one file/],
    ["an inline file that is also a directory", { name: "a", description: "d", files: { "SKILL.md": "x", docs: "x", "docs/a.md": "y" } }, /file "docs" is also a directory of "docs\/a\.md"/],
    ["a relative path", { name: "a", path: "skills/pdf-tools" }, /^skill "a": path must be absolute$/],
    ["a missing directory", { name: "a", path: "/nonexistent/skill-dir" }, /^skill "a": its directory cannot be read \(ENOENT\)$/],
  ])("refuses %s", (_what, skill, message) => {
    const error = refusal({ skills: [skill as never] });
    expect(error.message).toMatch(message);
  });

  it("never names the skill's directory in a refusal", () => {
    expect(refusal({ skills: [{ name: "a", path: join(root, "missing") }] }).message).not.toContain(root);
  });

  it("refuses a directory without SKILL.md, a file as path, a link out of the skill, a link loop and a tree above the bound", async () => {
    const dir = await mkdtemp(join(root, "case-"));
    await writeFile(join(dir, "README.md"), "x");
    expect(refusal({ skills: [{ name: "a", description: "d", path: dir }] }).message).toBe('skill "a": its directory holds no SKILL.md file');
    expect(refusal({ skills: [{ name: "a", description: "d", path: join(dir, "README.md") }] }).message).toBe('skill "a": path must be a directory');

    await writeFile(join(dir, "SKILL.md"), "x");
    await mkdir(join(dir, "docs"));
    await symlink(join(root, "skills"), join(dir, "docs", "escape"));
    expect(refusal({ skills: [{ name: "a", description: "d", path: dir }] }).message).toBe('skill "a": "docs/escape" links outside the skill directory');
    await rm(join(dir, "docs", "escape"));
    await symlink("..", join(dir, "docs", "loop"));
    expect(refusal({ skills: [{ name: "a", description: "d", path: dir }] }).message).toBe('skill "a": "." links back to a directory above it');
    await rm(join(dir, "docs", "loop"));
    await symlink(join(dir, "gone"), join(dir, "dangling"));
    expect(refusal({ skills: [{ name: "a", description: "d", path: dir }] }).message).toBe('skill "a": "dangling" is a broken link');
    await rm(join(dir, "dangling"));
    // A SKILL.md that is a link out of the skill is no SKILL.md of it.
    await rm(join(dir, "SKILL.md"));
    await symlink(join(skillDir, "SKILL.md"), join(dir, "SKILL.md"));
    expect(refusal({ skills: [{ name: "a", description: "d", path: dir }] }).message).toBe('skill "a": its directory holds no SKILL.md file');
    await rm(join(dir, "SKILL.md"));
    await writeFile(join(dir, "SKILL.md"), "x");
    await symlink("docs", join(dir, "docs-alias"));
    await accepted({ skills: [{ name: "a", description: "d", path: dir }] });

    // The tree is bounded (MAX_SKILL_ENTRIES at createAgent; a smaller bound here).
    expect(MAX_SKILL_ENTRIES).toBe(10_000);
    expect(() => checkSkills([{ name: "a", description: "d", path: dir }], 3)).toThrow('skill "a": its directory holds more than 3 entries');
    expect(() => checkSkills([{ name: "a", description: "d", path: dir }], 6)).not.toThrow();
  });

  it("keeps the shape checks: a skill has a path or files, not both, and names are unique", () => {
    expect(refusal({ skills: [{ name: "a" } as never] }).message).toMatch(/^skills\[0\]\.path: required/);
    expect(refusal({ skills: [{ name: "a", path: skillDir, files: {} } as never] }).message).toMatch(/^skills\[0\]\.files: unknown key/);
    expect(refusal({ skills: [{ name: "a", path: skillDir }, { name: "a", path: skillDir }] }).message).toMatch(/^skills\[1\]\.name: duplicate name/);
  });
});

describe("the resolver's own checks (also without the option schema in front)", () => {
  it("refuses a url that is not http(s) without quoting it", async () => {
    const { checkMcpServers } = await import("../../src/resources/check-mcp.js");
    const secret = "tokenZ9canary";
    for (const url of [`not a url ${secret}`, `file:///etc/${secret}`]) {
      let error: unknown;
      try {
        checkMcpServers([{ name: "a", url }]);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toBe('mcp server "a": url must be an http(s) URL');
      expect(JSON.stringify(error)).not.toContain(secret);
    }
  });
});
