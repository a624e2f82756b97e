/**
 * What one Pi process is given (src/drivers/pi/resources.ts): a private 0700 directory with the
 * materialized skills and the extension's 0600 configuration (named by a child variable, never an
 * argument), the endpoint opened for the process, and nothing left once it is released — or when
 * preparing fails.
 */
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { HostToolsEndpoint, ResolvedResources } from "../../../src/driver/types.js";
import { EXTENSION_CONFIG_ENV } from "../../../src/drivers/pi/extension.js";
import { extensionPath, openProcessResources } from "../../../src/drivers/pi/resources.js";

const empty: ResolvedResources = { tools: [], skills: [], mcp: [] };

function fakeLink(): { open(): Promise<HostToolsEndpoint>; closed: number } {
  const link = {
    closed: 0,
    open: async (): Promise<HostToolsEndpoint> => ({
      http: { name: "host", url: "http://127.0.0.1:1/mcp/e1", headers: { authorization: "Bearer token-canary-1" } },
      stdio: { name: "host", command: "node", args: [], env: {} },
      close: async () => void link.closed++,
    }),
  };
  return link;
}

describe("a Pi process's resources", () => {
  it("gives nothing, and needs no directory, when the agent has none", async () => {
    const given = await openProcessResources({ resources: empty });
    expect(given).toMatchObject({ args: [], env: {} });
    expect(given.endpoint).toBeUndefined();
  });

  it("writes skills and the extension's configuration into a private directory, and removes it with the endpoint on close", async () => {
    const link = fakeLink();
    const resources: ResolvedResources = {
      ...empty,
      instructions: "Be brief.",
      skills: [{ name: "lane-word", description: "Gives the word.", files: { "SKILL.md": "Say it." } }],
      mcp: [{ name: "db", command: "db-mcp", args: ["--ro"], env: { DB_PASSWORD: "pw-canary" } }],
    };
    const given = await openProcessResources({ resources, hostTools: link, builtinTools: ["read"] });
    const file = given.env[EXTENSION_CONFIG_ENV]!;
    const dir = dirname(file);
    expect(given.args).toEqual(["--skill", join(dir, "skills"), "--extension", extensionPath()]);
    expect(given.args.join(" ")).not.toContain("canary");
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, "skills", "lane-word", "SKILL.md"), "utf8")).toContain("Say it.");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      instructions: "Be brief.",
      builtinTools: ["read"],
      servers: [
        { name: "host", url: "http://127.0.0.1:1/mcp/e1", headers: { authorization: "Bearer token-canary-1" } },
        { name: "db", command: "db-mcp", args: ["--ro"], env: { DB_PASSWORD: "pw-canary" } },
      ],
    });
    expect(given.endpoint).toBeDefined();
    await given.close();
    await given.close();
    expect(existsSync(dir)).toBe(false);
    expect(link.closed).toBe(1);
  });

  it("for inspect() gives the skills only: no extension, no endpoint opened", async () => {
    const link = fakeLink();
    let opened = 0;
    const given = await openProcessResources({
      resources: { ...empty, instructions: "x", skills: [{ name: "s", description: "d", files: { "SKILL.md": "b" } }] },
      hostTools: { open: () => (opened++, link.open()) },
      inspectOnly: true,
    });
    expect(given.args[0]).toBe("--skill");
    expect(given.args).not.toContain("--extension");
    expect(opened).toBe(0);
    await given.close();
    expect(existsSync(given.args[1]!)).toBe(false);
  });

  it("fails before opening the endpoint when a skill cannot be written", async () => {
    const link = fakeLink();
    const bad: ResolvedResources = { ...empty, skills: [{ name: "bad", files: { "README.md": "no SKILL.md" } }] };
    await expect(openProcessResources({ resources: bad, hostTools: link })).rejects.toThrow(/SKILL\.md/);
    expect(link.closed).toBe(0);
  });
});
