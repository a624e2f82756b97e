import { describe, expect, it } from "vitest";
import { readSse } from "../../src/testing/model-server/index.js";
import { start } from "./model-server-fixture.js";
import type { ModelServer } from "../../src/testing/model-server/index.js";


const requests = {
  responses: { path: "/v1/responses", body: { model: "m", stream: true, input: "hi" } },
  chat: { path: "/v1/chat/completions", body: { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] } },
  anthropic: { path: "/v1/messages?beta=true", body: { model: "m", stream: true, max_tokens: 10, messages: [{ role: "user", content: "hi" }] } },
  gemini: { path: "/v1beta/models/g:streamGenerateContent?alt=sse", body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] } },
} as const;
type DialectName = keyof typeof requests;

function send(s: ModelServer, dialect: DialectName, stream = true): Promise<Response> {
  const { path, body } = requests[dialect];
  if (!stream) {
    const plain = dialect === "gemini" ? path.replace(":streamGenerateContent?alt=sse", ":generateContent") : path;
    return fetch(`${s.url}${plain}`, { method: "POST", body: JSON.stringify({ ...body, stream: false }) });
  }
  return fetch(`${s.url}${path}`, { method: "POST", body: JSON.stringify(body) });
}

const completion: Record<DialectName, (events: { event?: string; data: string; json?: unknown }[]) => boolean> = {
  responses: (events) => events.some((e) => e.event === "response.completed"),
  chat: (events) => events.some((e) => e.data === "[DONE]"),
  anthropic: (events) => events.some((e) => e.event === "message_stop"),
  gemini: (events) =>
    events.some((e) => (e.json as { candidates?: { finishReason?: string }[] }).candidates?.[0]?.finishReason === "STOP"),
};

describe("HTTP status faults: what the client sees", () => {
  const expected: Record<DialectName, Record<number, unknown>> = {
    responses: {
      401: { error: { type: "authentication_error", code: "authentication_error", param: null } },
      429: { error: { type: "rate_limit_exceeded" } },
      500: { error: { type: "server_error" } },
      529: { error: { type: "server_error" } },
    },
    chat: {
      401: { error: { type: "authentication_error" } },
      429: { error: { type: "rate_limit_exceeded" } },
      500: { error: { type: "server_error" } },
      529: { error: { type: "server_error" } },
    },
    anthropic: {
      401: { type: "error", error: { type: "authentication_error" } },
      429: { type: "error", error: { type: "rate_limit_error" } },
      500: { type: "error", error: { type: "api_error" } },
      529: { type: "error", error: { type: "overloaded_error" } },
    },
    gemini: {
      401: { error: { code: 401, status: "UNAUTHENTICATED" } },
      429: { error: { code: 429, status: "RESOURCE_EXHAUSTED" } },
      500: { error: { code: 500, status: "INTERNAL" } },
      529: { error: { code: 529, status: "UNAVAILABLE" } },
    },
  };
  for (const dialect of Object.keys(requests) as DialectName[]) {
    for (const status of [401, 429, 500, 529]) {
      it(`${dialect} ${status}: the status and the dialect's JSON error envelope, no stream`, async () => {
        const s = await start({ turns: [{ fault: { status } }] });
        const res = await send(s, dialect);
        expect(res.status).toBe(status);
        expect(res.headers.get("content-type")).toContain("application/json");
        const body = (await res.json()) as Record<string, unknown>;
        expect(body).toMatchObject(expected[dialect][status] as Record<string, unknown>);
        expect(JSON.stringify(body)).toContain("scripted fault");
        expect(s.requests[0]).toMatchObject({ status, matchedTurn: 0, fault: { status } });
      });
    }
  }

  it("sends a scripted body verbatim (JSON or text) with extra headers", async () => {
    const s = await start({
      turns: [
        { fault: { status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after": "0" } } },
        { fault: { status: 502, body: "<html>bad gateway</html>" } },
      ],
    });
    const first = await send(s, "chat");
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("0");
    expect(await first.json()).toEqual({ error: { message: "slow down" } });
    const second = await send(s, "chat");
    expect(second.status).toBe(502);
    expect(second.headers.get("content-type")).toContain("text/plain");
    expect(await second.text()).toBe("<html>bad gateway</html>");
  });
});

describe("cut stream: the client sees fewer events and a terminated stream without the completion event", () => {
  for (const dialect of Object.keys(requests) as DialectName[]) {
    it(dialect, async () => {
      const reply = { text: "a fairly long answer", chunkSize: 4 };
      const s = await start({ turns: [{ reply }, { reply, fault: { cutAfterEvents: 2 } }] });
      const whole = await readSse(await send(s, dialect));
      expect(whole.complete).toBe(true);
      expect(completion[dialect](whole.events)).toBe(true);

      const res = await send(s, dialect);
      expect(res.status).toBe(200);
      const cut = await readSse(res);
      expect(cut.complete).toBe(false);
      expect(cut.error).toBeDefined();
      expect(cut.events).toHaveLength(2);
      expect(cut.events.map((e) => e.event)).toEqual(whole.events.slice(0, 2).map((e) => e.event));
      expect(cut.events.every((e) => e.json !== undefined)).toBe(true);
      expect(completion[dialect](cut.events)).toBe(false);
      expect(s.requests[1]).toMatchObject({ status: 200, fault: { cutAfterEvents: 2 } });
    });
  }

  it("cutAfterEvents: 0 sends the headers and no event", async () => {
    const s = await start({ turns: [{ fault: { cutAfterEvents: 0 } }] });
    const res = await send(s, "anthropic");
    expect(res.status).toBe(200);
    const cut = await readSse(res);
    expect(cut).toMatchObject({ complete: false, events: [] });
  });

  it("a non-streaming request with a cut fault gets its connection dropped before any byte", async () => {
    const s = await start({ turns: [{ fault: { cutAfterEvents: 0 } }, { reply: { text: "after" } }] });
    await expect(send(s, "anthropic", false)).rejects.toThrow();
    expect(s.requests[0]).toMatchObject({ status: 0, fault: { cutAfterEvents: 0 } });
    // the server keeps serving
    const next = await send(s, "anthropic", false);
    expect(((await next.json()) as { content: unknown[] }).content).toEqual([{ type: "text", text: "after" }]);
  });
});

describe("delayMs and dripMs: events still arrive complete", () => {
  for (const dialect of Object.keys(requests) as DialectName[]) {
    it(dialect, async () => {
      const reply = { text: "drip drip drip", chunkSize: 5 };
      const s = await start({ turns: [{ reply }, { reply, fault: { delayMs: 30, dripMs: 5 } }] });
      const plain = await readSse(await send(s, dialect));
      const slow = await readSse(await send(s, dialect));
      expect(slow.complete).toBe(true);
      expect(slow.events.map((e) => e.event)).toEqual(plain.events.map((e) => e.event));
      expect(slow.events).toHaveLength(plain.events.length);
      expect(completion[dialect](slow.events)).toBe(true);
      expect(s.requests[1]?.fault).toEqual({ delayMs: 30, dripMs: 5 });
    });
  }

  it("delayMs also applies to non-streaming answers and status faults", async () => {
    const s = await start({ turns: [{ reply: { text: "late" }, fault: { delayMs: 20 } }, { fault: { status: 500, delayMs: 20 } }] });
    const res = await send(s, "chat", false);
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe("late");
    expect((await send(s, "chat", false)).status).toBe(500);
  });
});
