import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { AdaptorError } from "../../src/errors/index.js";
import {
  DEFAULT_MODEL_ID,
  REDACTED,
  modelScriptSchema,
  parseModelScript,
  runModelServerCommand,
  startModelServer,
} from "../../src/testing/model-server/index.js";
import type { CapturedRequest, ModelScript, ModelServer } from "../../src/testing/model-server/index.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: ModelScript, host?: string): Promise<ModelServer> {
  server = await startModelServer(host === undefined ? { script } : { script, host });
  return server;
}

describe("startModelServer", () => {
  it("binds 127.0.0.1 on an ephemeral port and closes idempotently", async () => {
    const s = await start({ turns: [] });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await s.close();
    await s.close();
    await expect(fetch(`${s.url}/`)).rejects.toThrow();
  });

  it("accepts loopback hosts only", async () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com", "10.0.0.1"]) {
      const attempt = startModelServer({ script: { turns: [] }, host });
      await expect(attempt).rejects.toThrow(/loopback/);
      await expect(attempt).rejects.toSatisfy((e: unknown) => AdaptorError.is(e) && e.code === "config_invalid");
    }
    const s = await start({ turns: [] }, "localhost");
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("rejects an invalid script with zod issues naming their paths", async () => {
    const bad = {
      turns: [
        { reply: { text: 42 } },
        { match: { lastUserTextContain: "typo" }, reply: { text: "x" } },
        { label: "nothing to answer" },
        { fault: { status: 500, cutAfterEvents: 1 } },
      ],
    };
    expect(modelScriptSchema.safeParse(bad).success).toBe(false);
    let error: unknown;
    try {
      parseModelScript(bad);
    } catch (e) {
      error = e;
    }
    expect(AdaptorError.is(error) && error.code).toBe("config_invalid");
    const message = (error as Error).message;
    expect(message).toContain("turns[0].reply.text");
    expect(message).toContain("lastUserTextContain");
    expect(message).toContain("a turn needs a `reply` or a `fault`");
    expect(message).toContain("cannot have both `status` and `cutAfterEvents`");
    await expect(startModelServer({ script: bad as unknown as ModelScript })).rejects.toThrow(/invalid model script/);
    expect(() => parseModelScript({})).toThrow(/turns/);
  });

  it("records requests with redacted credentials and parsed, normalized bodies", async () => {
    const s = await start({ turns: [{ reply: { text: "ok" } }] });
    await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: "Bearer sk-live-123",
        "x-api-key": "sk-ant-456",
        "x-goog-api-key": "AIza789",
        cookie: "session=abc",
        "x-custom-token": "t0k",
        "x-trace": "visible",
      },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }),
    });
    const req = s.requests[0] as CapturedRequest;
    for (const name of ["authorization", "x-api-key", "x-goog-api-key", "cookie", "x-custom-token"]) {
      expect(req.headers[name]).toBe(REDACTED);
    }
    expect(req.headers["x-trace"]).toBe("visible");
    expect(JSON.stringify(s.requests)).not.toMatch(/sk-live|sk-ant|AIza|abc|t0k/);
    expect(req).toMatchObject({
      index: 0,
      method: "POST",
      path: "/v1/chat/completions",
      dialect: "chat",
      model: "m",
      stream: false,
      body: { model: "m", messages: [{ role: "user", content: "hello" }] },
      messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }],
      tools: [],
      status: 200,
    });
  });

  it("decodes gzip request bodies", async () => {
    const s = await start({ turns: [{ reply: { text: "ok" } }] });
    const res = await fetch(`${s.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync(JSON.stringify({ model: "m", input: "zipped" })),
    });
    expect(res.status).toBe(200);
    expect(s.requests[0]?.messages).toEqual([{ role: "user", parts: [{ type: "text", text: "zipped" }] }]);
  });

  it("answers 404 for unknown endpoints and 400 for a non-JSON model request, recording both", async () => {
    const s = await start({ turns: [{ reply: { text: "kept" } }] });
    const unknown = await fetch(`${s.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain("/v1/embeddings");
    const garbage = await fetch(`${s.url}/v1/messages`, { method: "POST", body: "not json" });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(s.requests.map((r) => [r.dialect, r.status])).toEqual([
      ["other", 404],
      ["anthropic", 400],
    ]);
    expect(s.requests[1]?.body).toBe("not json");
    expect(s.unusedTurns()).toEqual([0]);
  });

  it("lists models in the OpenAI shape by default: script models, else ids named in rules, else a default id", async () => {
    const named = await start({ turns: [{ match: { model: "gpt-fake" }, reply: { text: "x" } }] });
    expect(await (await fetch(`${named.url}/v1/models`)).json()).toEqual({
      object: "list",
      data: [{ id: "gpt-fake", object: "model", created: expect.any(Number) as number, owned_by: "scripted-model-server" }],
    });
    expect(((await (await fetch(`${named.url}/models`)).json()) as { data: unknown[] }).data).toHaveLength(1);
    await named.close();
    const plain = await start({ turns: [] });
    const body = (await (await fetch(`${plain.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(body.data.map((m) => m.id)).toEqual([DEFAULT_MODEL_ID]);
  });

  it("serves captured requests and unused turns at /__model-server/ without recording them", async () => {
    const s = await start({ turns: [{ reply: { text: "a" } }, { reply: { text: "b" } }] });
    await fetch(`${s.url}/v1/responses`, { method: "POST", body: JSON.stringify({ model: "m", input: "x" }) });
    const captured = (await (await fetch(`${s.url}/__model-server/requests`)).json()) as CapturedRequest[];
    expect(captured).toHaveLength(1);
    expect(captured[0]).toMatchObject({ dialect: "responses", matchedTurn: 0 });
    expect(await (await fetch(`${s.url}/__model-server/unused-turns`)).json()).toEqual({ unusedTurns: [1] });
    expect(s.requests).toHaveLength(1);
  });
});

describe("runModelServerCommand", () => {
  it("prints the URL as the first stdout line, serves the script, and stops on its signal", async () => {
    const dir = await mkdtemp(join(tmpdir(), "model-server-cmd-"));
    try {
      const file = join(dir, "script.json");
      await writeFile(file, JSON.stringify({ turns: [{ reply: { text: "from file" } }] }));
      const lines: string[] = [];
      let printed!: () => void;
      const ready = new Promise<void>((resolve) => (printed = resolve));
      const stop = new AbortController();
      const running = runModelServerCommand(
        { script: file },
        {
          stdout: {
            write(text: string) {
              lines.push(text);
              printed();
            },
          },
          signal: stop.signal,
        },
      );
      await ready;
      const url = lines[0]!.trim();
      expect(lines[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
      const res = await fetch(`${url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });
      expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe("from file");
      stop.abort();
      await running;
      await expect(fetch(`${url}/`)).rejects.toThrow();
      expect(lines).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails with a config error for a script file that is not valid JSON or not a valid script", async () => {
    const dir = await mkdtemp(join(tmpdir(), "model-server-cmd-"));
    try {
      const notJson = join(dir, "a.json");
      await writeFile(notJson, "{ nope");
      await expect(runModelServerCommand({ script: notJson })).rejects.toThrow(/not valid JSON/);
      const badScript = join(dir, "b.json");
      await writeFile(badScript, JSON.stringify({ turns: "x" }));
      await expect(runModelServerCommand({ script: badScript })).rejects.toThrow(/invalid model script/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
