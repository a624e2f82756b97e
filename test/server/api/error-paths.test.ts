/**
 * Error bodies name no host path: a `thread_incompatible` answer keeps the dimensions and the
 * values that are not paths, with the workspace (and any path-valued setting) as `<path>`, in its
 * message and its details; other library messages have their absolute paths replaced.
 */
import { describe, expect, it } from "vitest";
import { ThreadIncompatibleError } from "../../../src/errors/index.js";
import { clientMismatch, hidePaths, PATH_PLACEHOLDER } from "../../../src/server/hide-paths.js";
import { startServer } from "./helpers.js";

describe("a thread_incompatible answer over HTTP", () => {
  it("names the workspace dimension but neither workspace path, in the message or the details", async () => {
    const first = await startServer();
    try {
      expect((await first.api("/api/sessions", { json: { agent: "fake", id: "moved-away" } })).status).toBe(201);
      await first.server.close();
      const second = await startServer({ stateDir: first.stateDir });
      try {
        const refused = await second.api("/api/sessions/moved-away/submit", { json: { text: "hello" } });
        expect(refused.status).toBe(409);
        const text = await refused.text();
        expect(text).not.toContain(first.workspace);
        expect(text).not.toContain(second.workspace);
        expect(text).not.toContain(first.stateDir);
        const body = JSON.parse(text) as { error: { code: string; message: string; details?: { mismatches: { dimension: string; recorded: string; current: string }[] } } };
        expect(body.error.code).toBe("thread_incompatible");
        expect(body.error.message).toContain("workspace differs");
        expect(body.error.message).toContain(`recorded "${PATH_PLACEHOLDER}"`);
        const workspace = body.error.details?.mismatches.find((m) => m.dimension === "workspace");
        expect(workspace).toMatchObject({ recorded: PATH_PLACEHOLDER, current: PATH_PLACEHOLDER });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});

describe("clientMismatch", () => {
  it("keeps values that are not paths and replaces path values whole, spaces and all", () => {
    const error = new ThreadIncompatibleError([
      { dimension: "model", setting: "createAgent option model", recorded: "gpt-5", current: "gpt-5-mini" },
      { dimension: "driver.args", setting: "codex driver config args", recorded: "/opt/my tools/codex --fast", current: "--fast" },
      { dimension: "workspace", setting: "createAgent option workspace", recorded: "relative/ws", current: "C:\\Users\\me\\ws" },
      "sandbox",
    ]);
    expect(error.mismatches.map(clientMismatch)).toEqual([
      { dimension: "model", setting: "createAgent option model", recorded: "gpt-5", current: "gpt-5-mini" },
      { dimension: "driver.args", setting: "codex driver config args", recorded: PATH_PLACEHOLDER, current: "--fast" },
      { dimension: "workspace", setting: "createAgent option workspace", recorded: PATH_PLACEHOLDER, current: PATH_PLACEHOLDER },
      { dimension: "sandbox", setting: "sandbox", recorded: "(unknown)", current: "(unknown)" },
    ]);
  });
});

describe("hidePaths", () => {
  it("replaces absolute POSIX, home, drive, UNC and file: paths inside text", () => {
    expect(hidePaths('cannot open the store "/var/lib/aa/serve.db": locked')).toBe(`cannot open the store "${PATH_PLACEHOLDER}": locked`);
    expect(hidePaths("workspace /home/me/project/ is not a directory")).toBe(`workspace ${PATH_PLACEHOLDER} is not a directory`);
    expect(hidePaths("see ~/.config/aa.toml")).toBe(`see ${PATH_PLACEHOLDER}`);
    expect(hidePaths("C:\\Users\\me\\ws is gone")).toBe(`${PATH_PLACEHOLDER} is gone`);
    expect(hidePaths("\\\\server\\share\\ws is gone")).toBe(`${PATH_PLACEHOLDER} is gone`);
    expect(hidePaths("read file:///etc/passwd")).toBe(`read ${PATH_PLACEHOLDER}`);
  });

  it("leaves routes of URLs, relative paths and slashes between words", () => {
    for (const text of [
      "the session's run/session ceiling",
      "fetch https://example.com/v1/models failed",
      "content-type text/plain, 1/2 done",
      "the file src/index.ts",
    ]) {
      expect(hidePaths(text)).toBe(text);
    }
  });
});
