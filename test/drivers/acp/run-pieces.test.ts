/**
 * The pure pieces of an ACP run, tested directly: capability reading, prompt blocks, MCP servers,
 * the session/load delay, option choice for approvals, config option values, the fs bridge's
 * line window, the usage shapes agents report, and auth/status answers.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PermissionOption, SessionConfigOption } from "@agentclientprotocol/sdk/unstable";
import { afterAll, describe, expect, it } from "vitest";
import type { ResolvedInput, RunRequest } from "../../../src/driver/types.js";
import { agentCaps } from "../../../src/drivers/acp/capabilities.js";
import { SessionConfigOptions, findOption, optionValues, type SessionAnswerFrame } from "../../../src/drivers/acp/config-options.js";
import { quotaUsage, tokenUsage } from "../../../src/drivers/acp/events.js";
import { readTextFile, writeTextFile } from "../../../src/drivers/acp/fs-bridge.js";
import { authStatusReport, type AuthStatusFrame } from "../../../src/drivers/acp/inspect.js";
import { approvalKind, approvalOptions, chooseOption } from "../../../src/drivers/acp/permissions.js";
import { promptBlocks } from "../../../src/drivers/acp/prompt-blocks.js";
import { mcpToolOf } from "../../../src/drivers/acp/tools.js";
import { acpResourceSupport, instructionArgs, instructionEnv, sessionMeta } from "../../../src/drivers/acp/resources.js";
import { loadDelayMs, mcpServers } from "../../../src/drivers/acp/session.js";
import { readFrame, type AnyVariant } from "../../../src/driver/lens.js";
import { InputError } from "../../../src/input/errors.js";
import { FeatureUnsupportedError } from "../../../src/errors/index.js";

const root = mkdtempSync(join(tmpdir(), "acp-pieces-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const NO_RESOURCES: RunRequest["resources"] = { tools: [], skills: [], mcp: [] };

function fileInput(name: string, bytes: string, kind: ResolvedInput["kind"], deliveryMode: ResolvedInput["deliveryMode"], mediaType: string): ResolvedInput {
  const localPath = join(root, name);
  writeFileSync(localPath, bytes);
  return { id: name, kind, name, mediaType, localPath, size: bytes.length, sha256: "", deliveryMode };
}

describe("agentCaps", () => {
  it("reads each advertised flag and treats a missing or ill-typed one as false", () => {
    const init = {
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: "yes", embeddedContext: true },
        sessionCapabilities: { resume: {}, fork: true },
        mcpCapabilities: { http: true },
      },
    };
    expect(agentCaps(init)).toEqual({ image: true, audio: false, embeddedContext: true, loadSession: true, resume: true, fork: false, mcpHttp: true });
    expect(agentCaps({ agentCapabilities: [] })).toEqual({ image: false, audio: false, embeddedContext: false, loadSession: false, resume: false, fork: false, mcpHttp: false });
    expect(agentCaps(undefined).loadSession).toBe(false);
  });
});

describe("promptBlocks", () => {
  it("sends the text first, images natively when advertised, and files as resource links", async () => {
    const image = fileInput("a.png", "PNGDATA", "image", "native", "image/png");
    const doc = fileInput("notes.txt", "hello", "file", "workspace_reference", "text/plain");
    const blocks = await promptBlocks({ prompt: "look", inputs: [image, doc] }, { image: true, audio: false }, "acp");
    expect(blocks).toEqual([
      { type: "text", text: "look" },
      { type: "image", data: Buffer.from("PNGDATA").toString("base64"), mimeType: "image/png" },
      { type: "resource_link", uri: pathToFileURL(doc.localPath).href, name: "notes.txt", mimeType: "text/plain", size: 5 },
    ]);
  });

  it("refuses an image the agent did not advertise, and a file sent natively, before delivery", async () => {
    const image = fileInput("b.png", "PNG", "image", "native", "image/png");
    const refused = await promptBlocks({ prompt: "x", inputs: [image] }, { image: false, audio: true }, "acp").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InputError);
    expect(refused).toMatchObject({ code: "input_mode_unsupported", index: 0, kind: "image", driver: "acp" });
    const inline = fileInput("c.txt", "x", "file", "native", "text/plain");
    await expect(promptBlocks({ prompt: "x", inputs: [inline] }, { image: true, audio: true }, "acp")).rejects.toMatchObject({ code: "input_mode_unsupported", index: 0 });
  });
});

describe("session parameters", () => {
  const resources: RunRequest["resources"] = {
    tools: [],
    skills: [],
    mcp: [
      { name: "local", command: "srv", env: { A: "1" } },
      { name: "remote", url: "https://mcp.invalid", headers: { H: "v" } },
    ],
  };

  it("offers stdio MCP servers always and HTTP ones only when advertised", () => {
    const stdioOnly = { resources: { ...resources, mcp: resources.mcp.slice(0, 1) } };
    expect(mcpServers(stdioOnly, { http: false, stdio: true }, "gemini")).toEqual([{ name: "local", command: "srv", args: [], env: [{ name: "A", value: "1" }] }]);
    expect(mcpServers({ resources }, { http: true, stdio: true }, "gemini")[1]).toEqual({ type: "http", name: "remote", url: "https://mcp.invalid", headers: [{ name: "H", value: "v" }] });
  });

  it("refuses an HTTP MCP server the agent does not advertise, naming the server and the driver (never its headers)", () => {
    let error: unknown;
    try {
      mcpServers({ resources }, { http: false, stdio: true }, "copilot");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FeatureUnsupportedError);
    expect((error as Error).message).toContain('"remote"');
    expect((error as FeatureUnsupportedError).resource).toEqual({ kind: "mcp", name: "remote" });
    expect((error as Error).message).toContain("copilot");
    expect((error as Error).message).not.toContain("https://mcp.invalid");
  });

  it("refuses a stdio MCP server to an agent that takes HTTP ones only (Copilot CLI)", () => {
    const stdioOnly = { resources: { ...resources, mcp: resources.mcp.slice(0, 1) } };
    expect(() => mcpServers(stdioOnly, { http: true, stdio: false }, "copilot")).toThrow(/MCP servers over stdio .*\(mcp "local"\)/);
  });

  it("recognizes a call to an offered MCP server's tool the way each agent marks it, and only for offered servers", () => {
    expect(mcpToolOf({ title: "Tool: echo/say", input: { server: "echo", tool: "say", arguments: {} } }, ["echo"])).toEqual({ server: "echo", tool: "say" });
    expect(mcpToolOf({ name: "mcp__echo__say", title: "mcp__echo__say" }, ["echo"])).toEqual({ server: "echo", tool: "say" });
    expect(mcpToolOf({ title: "say (echo MCP Server)", callId: "mcp_echo_say__call_1" }, ["echo"])).toEqual({ server: "echo", tool: "say" });
    expect(mcpToolOf({ title: "say (echo MCP Server)", callId: "mcp_echo_say__call_1" }, ["other"])).toBeUndefined();
    expect(mcpToolOf({ title: "host-lookup", callId: "call_1" }, ["host", "echo"])).toEqual({ server: "host", tool: "lookup" });
    expect(mcpToolOf({ title: "my-host-lookup" }, ["my", "my-host"])).toEqual({ server: "my-host", tool: "lookup" });
    expect(mcpToolOf({ title: "host-lookup now" }, ["host"])).toBeUndefined();
    expect(mcpToolOf({ name: "mcp__echo__say" }, [])).toBeUndefined();
    expect(mcpToolOf({ name: "Bash", input: { command: "ls" } }, ["echo"])).toBeUndefined();
  });

  it("adds the host-tools endpoint last: over HTTP when advertised, else through its stdio bridge", () => {
    const endpoint = {
      http: { name: "host", url: "http://127.0.0.1:1/mcp/x", headers: { Authorization: "Bearer t0k" } },
      stdio: { name: "host", command: "/usr/bin/node", args: ["/bridge.js"], env: { HOST_URL: "http://127.0.0.1:1/mcp/x", HOST_TOKEN: "t0k" } },
    };
    expect(mcpServers({ resources: NO_RESOURCES }, { http: true, stdio: true }, "acp", endpoint)).toEqual([
      { type: "http", name: "host", url: "http://127.0.0.1:1/mcp/x", headers: [{ name: "Authorization", value: "Bearer t0k" }] },
    ]);
    expect(mcpServers({ resources: NO_RESOURCES }, { http: false, stdio: true }, "acp", endpoint)).toEqual([
      { name: "host", command: "/usr/bin/node", args: ["/bridge.js"], env: [{ name: "HOST_URL", value: "http://127.0.0.1:1/mcp/x" }, { name: "HOST_TOKEN", value: "t0k" }] },
    ]);
  });

  it("waits past the creation minute only when the session was created in the current minute (agents that name history files by that minute)", () => {
    const minute = Date.UTC(2026, 0, 1, 12, 30);
    expect(loadDelayMs(undefined, minute + 5_000)).toBe(0);
    expect(loadDelayMs(minute + 10_000, minute + 20_000)).toBe(40_000 + 250);
    expect(loadDelayMs(minute + 59_900, minute + 59_950)).toBe(50 + 250);
    expect(loadDelayMs(minute + 10_000, minute + 60_000)).toBe(0);
    expect(loadDelayMs(minute - 1, minute + 1)).toBe(0);
  });
});

describe("permission options", () => {
  const offered = [
    { optionId: "yes", name: "Allow", kind: "allow_once" },
    { optionId: "always", name: "Always", kind: "allow_always" },
    { optionId: "no", name: "Reject", kind: "reject_once" },
  ].map((o) => readFrame<PermissionOption>(o)!);

  it("chooses the offered option by kind, falling back within allow or reject", () => {
    expect(chooseOption({ decision: "allow" }, offered)).toBe("yes");
    expect(chooseOption({ decision: "allow", scope: "session" }, offered)).toBe("always");
    expect(chooseOption({ decision: "deny" }, offered)).toBe("no");
    const onlyAlways = [readFrame<PermissionOption>({ optionId: "a", kind: "allow_always" })!];
    expect(chooseOption({ decision: "allow" }, onlyAlways)).toBe("a");
    expect(chooseOption({ decision: "deny" }, onlyAlways)).toBeUndefined();
  });

  it("maps option and tool kinds to canonical ones, skipping options without an id", () => {
    const withBroken = [...offered, readFrame<PermissionOption>({ name: "no id", kind: "allow_once" })!, readFrame<PermissionOption>({ optionId: "x", kind: "custom" })!];
    expect(approvalOptions(withBroken)).toEqual([
      { id: "yes", label: "Allow", kind: "allow_once" },
      { id: "always", label: "Always", kind: "allow_always" },
      { id: "no", label: "Reject", kind: "deny" },
      { id: "x", label: "x", kind: "other" },
    ]);
    expect([approvalKind("execute"), approvalKind("move"), approvalKind("read"), approvalKind(7)]).toEqual(["command", "file_change", "tool", "tool"]);
  });
});

describe("config options", () => {
  const model = readFrame<AnyVariant<SessionConfigOption>>({
    id: "model",
    category: "model",
    currentValue: "a",
    options: [{ value: "a" }, { group: "more", options: [{ value: "b" }, { value: 3 }] }],
  })!;

  it("lists flat and grouped values and finds an option by category, else by id", () => {
    expect(optionValues(model)).toEqual(["a", "b"]);
    const effort = readFrame<AnyVariant<SessionConfigOption>>({ id: "reasoning_effort", currentValue: "low", options: [] })!;
    expect(findOption([model, effort], "model", ["model"])).toBe(model);
    expect(findOption([model, effort], "thought_level", ["reasoning_effort"])).toBe(effort);
    expect(findOption([model], "thought_level", ["effort"])).toBeUndefined();
  });

  it("sets an offered value and requires the readback to confirm it", async () => {
    const sent: [string, string][] = [];
    const options = new SessionConfigOptions();
    options.adopt(readFrame<SessionAnswerFrame>({ configOptions: [model] })!);
    await options.apply({ model: "b" }, async (configId, value) => {
      sent.push([configId, value]);
      return { configOptions: [{ ...model, currentValue: value }] };
    }, async () => undefined);
    expect(sent).toEqual([["model", "b"]]);

    const unconfirmed = new SessionConfigOptions();
    unconfirmed.adopt(readFrame<SessionAnswerFrame>({ configOptions: [model] })!);
    await expect(unconfirmed.apply({ model: "b" }, async () => ({ configOptions: [model] }), async () => undefined)).rejects.toMatchObject({ code: "config_value_rejected", phase: "before_delivery" });
    await expect(unconfirmed.apply({ model: "z" }, async () => ({}), async () => undefined)).rejects.toMatchObject({ code: "config_value_unavailable" });
    await expect(unconfirmed.apply({ effort: "high" }, async () => ({}), async () => undefined)).rejects.toMatchObject({ code: "config_option_unsupported" });
  });

  it("accepts the model the legacy session model state already names, without a config option", async () => {
    const legacy = new SessionConfigOptions();
    legacy.adopt(readFrame<SessionAnswerFrame>({ models: { currentModelId: "m1" } })!);
    await expect(legacy.apply({ model: "m1" }, async () => ({}), async () => undefined)).resolves.toBeUndefined();
  });
});

describe("fs bridge", () => {
  it("reads a line window from a 1-based line and writes inside the workspace only", async () => {
    const workspace = mkdtempSync(join(root, "ws-"));
    const file = join(workspace, "f.txt");
    writeFileSync(file, "one\ntwo\nthree\nfour");
    expect(await readTextFile(workspace, [], { path: file })).toEqual({ content: "one\ntwo\nthree\nfour" });
    expect(await readTextFile(workspace, [], { path: file, line: 2, limit: 2 })).toEqual({ content: "two\nthree" });
    expect(await readTextFile(workspace, [], { path: file, line: 0 })).toEqual({ content: "one\ntwo\nthree\nfour" });
    await writeTextFile(workspace, { path: join(workspace, "sub", "new.txt"), content: "hi" });
    expect(readFileSync(join(workspace, "sub", "new.txt"), "utf8")).toBe("hi");
    await expect(writeTextFile(workspace, { path: join(root, "outside.txt"), content: "x" })).rejects.toMatchObject({ code: -32602 });
    await expect(readTextFile(workspace, [], { path: "relative.txt" })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("reported usage", () => {
  it("reads the schema's camelCase counts and the snake_case ones agents put in _meta", () => {
    expect(tokenUsage({ inputTokens: 10, outputTokens: 2, totalTokens: 12, thoughtTokens: 1, cachedReadTokens: 4 })).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
      reasoning_output_tokens: 1,
      cached_input_tokens: 4,
    });
    expect(tokenUsage({ input_tokens: 246, output_tokens: "90" })).toEqual({ input_tokens: 246 });
    expect(tokenUsage("none")).toBeUndefined();
    expect(quotaUsage({ quota: { token_count: { input_tokens: 246, output_tokens: 90 } } })).toEqual({ input_tokens: 246, output_tokens: 90 });
    expect(quotaUsage({ quota: 5 })).toBeUndefined();
    expect(quotaUsage(undefined)).toBeUndefined();
  });
});

describe("auth/status answers", () => {
  const report = (answer: unknown) => authStatusReport(readFrame<AuthStatusFrame>(answer)!);

  it("reads the schema's state first, and the drafts' fields only when there is no state", () => {
    expect(report({ state: "authenticated" })).toEqual({ signedIn: true });
    expect(report({ state: "unauthenticated", authenticated: true })).toEqual({ signedIn: false });
    expect(report({ authenticated: true })).toEqual({ signedIn: true });
    expect(report({ signedIn: true, methodId: "api-key" })).toEqual({ signedIn: true, method: "api-key" });
    expect(report({ status: "authenticated" })).toEqual({ signedIn: true });
    expect(report({ state: 7, authenticated: "yes", status: "signed_out" })).toEqual({ signedIn: false });
  });

  it("says when no sign-in is needed, and reports nothing when the agent cannot tell", () => {
    expect(report({ state: "not_required" })).toEqual({ signedIn: false, required: false });
    expect(report({ state: "unknown" })).toBeUndefined();
    expect(report({ state: "half_signed_in" })).toBeUndefined();
  });

  it("names the active account", () => {
    const accounts = [{ label: "work", email: "a@example.com" }, { label: "home", email: "b@example.com", active: true }];
    expect(report({ state: "authenticated", accounts })).toEqual({ signedIn: true, account: "b@example.com" });
    expect(report({ state: "authenticated", accounts: [{ label: "only", active: true }] })).toEqual({ signedIn: true, account: "only" });
  });
});

describe("resources per preset", () => {
  it("declares what each agent receives: MCP and host tools on all, HTTP-only MCP on Copilot, instructions where the agent has a way, skills nowhere", () => {
    expect(acpResourceSupport({})).toEqual({ instructions: false, hostTools: true, skills: false, mcp: { stdio: true, http: "advertised" } });
    expect(acpResourceSupport({ stdioMcp: false }).mcp).toEqual({ stdio: false, http: "advertised" });
    expect(acpResourceSupport({ instructions: "session_meta_system_prompt" }).instructions).toBe(true);
    expect(acpResourceSupport({ skills: "claude_plugin" }).skills).toBe(true);
  });

  it("carries instructions by the preset's route only", () => {
    const resources = { instructions: "Be brief." };
    expect(sessionMeta(resources, { instructions: "session_meta_system_prompt" })).toEqual({ systemPrompt: { append: "Be brief." } });
    expect(sessionMeta(resources, { instructions: "codex_developer_instructions" })).toBeUndefined();
    expect(sessionMeta({}, { instructions: "session_meta_system_prompt" })).toBeUndefined();
    expect(sessionMeta({}, { skills: "claude_plugin" }, "/plugin")).toEqual({ claudeCode: { options: { plugins: [{ type: "local", path: "/plugin" }] } } });
    expect(sessionMeta({}, {}, "/plugin")).toBeUndefined();
    expect(instructionArgs(resources, { instructions: "codex_developer_instructions" })).toEqual(["-c", 'developer_instructions="Be brief."']);
    expect(instructionArgs(resources, {})).toEqual([]);
  });

  it("writes Copilot's instructions as an *.instructions.md file in a fresh 0700 directory named by COPILOT_CUSTOM_INSTRUCTIONS_DIRS, removed on demand", async () => {
    expect(await instructionEnv({ instructions: "Be brief." }, {})).toBeUndefined();
    const made = await instructionEnv({ instructions: "Be brief." }, { instructions: "copilot_instructions_dir" });
    const dir = made!.env.COPILOT_CUSTOM_INSTRUCTIONS_DIRS!;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(dir, "agent.instructions.md"), "utf8")).toBe('---\napplyTo: "**"\n---\nBe brief.\n');
    expect(statSync(join(dir, "agent.instructions.md")).mode & 0o777).toBe(0o600);
    await made!.remove();
    expect(existsSync(dir)).toBe(false);
  });
});
