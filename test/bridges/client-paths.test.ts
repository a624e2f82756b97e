/**
 * Host paths kept out of what each bridge sends its remote client: a run whose failure names a
 * file in the workspace reads `<path>` over SSE (a run's stream and a session's log), the AI SDK
 * UI message stream and AG-UI (`toAgUi` and the endpoint); a source or an answer refused with a
 * library error naming a path does too.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agUiHandler, toAgUi, type AgUiEvent } from "../../src/bridges/ag-ui/index.js";
import { errorEvents, jsonError } from "../../src/bridges/ag-ui/sse.js";
import { toUIMessageStream, type AgentUIMessageChunk } from "../../src/bridges/ai-sdk/index.js";
import { sseActionsHandler, toSSE } from "../../src/bridges/sse/index.js";
import { clientEvent } from "../../src/bridges/shared/client-event.js";
import { ConfigError, createAgent, createSession, StoreError, type Agent } from "../../src/index.js";
import type { AgentEvent } from "../../src/events/public.js";
import { fakeDriver } from "../../src/testing/index.js";
import { postRaw, serveHandler, userInput } from "./ag-ui-helpers.js";

let workspace = "";
let agent: Agent | undefined;
let cleanup: (() => Promise<void>)[] = [];

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "bridge-hidden-workspace-"));
});
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  await agent?.close();
  agent = undefined;
  await rm(workspace, { recursive: true, force: true });
});

/** The failure message of the runs: it names a file in the workspace. */
const failure = (): string => `cannot write ${join(workspace, "build", "out.txt")} (permission denied)`;
const SHOWN = "cannot write <path> (permission denied)";

function failingAgent(): Agent {
  const message = failure();
  agent = createAgent(fakeDriver({ script: () => ({ steps: [{ markDelivered: true }, { fail: { message } }] }) }), { workspace });
  return agent;
}

async function collect<T>(items: AsyncIterable<T> | ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items as AsyncIterable<T>) out.push(item);
  return out;
}

describe("SSE bridge", () => {
  it("a failed run's run.failed frame shows <path>, not the workspace", async () => {
    const stream = failingAgent().stream("x");
    const text = await new Response(toSSE(stream, { heartbeatMs: 0, retryMs: 0 })).text();
    await stream.result.catch(() => undefined);
    const frame = text.split("\n\n").find((f) => f.includes("event: run.failed"));
    expect(frame).toBeDefined();
    const data = JSON.parse(frame!.split("\n").find((line) => line.startsWith("data: "))!.slice("data: ".length)) as { error: { message: string; code: string } };
    expect(data.error.message).toBe(SHOWN);
    expect(text).not.toContain(workspace);
  });

  it("a session's log: the run.failed entry shows <path>; the session's own log keeps the host's text", async () => {
    const session = await createSession(failingAgent());
    cleanup.push(() => session.close());
    await session.submit("x");
    const ended = new AbortController();
    const seen: string[] = [];
    // The session's log, read directly, ends at its run.failed entry.
    for await (const entry of session.events({ signal: ended.signal })) {
      if (entry.event.type === "run.failed") {
        seen.push(entry.event.error.message);
        break;
      }
    }
    expect(seen).toEqual([failure()]);
    const reader = toSSE(session, { heartbeatMs: 0, retryMs: 0 }).getReader();
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes("event: run.failed")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader.cancel("done");
    expect(text).toContain(JSON.stringify(SHOWN));
    expect(text).not.toContain(workspace);
  });

  it("a source failing with a library error naming a path: the stream.error frame shows <path>", async () => {
    async function* failing(): AsyncGenerator<AgentEvent> {
      yield* [];
      throw new StoreError("store_unavailable", `cannot open ${join(workspace, "threads.db")} (locked)`);
    }
    const text = await new Response(toSSE(failing(), { heartbeatMs: 0, retryMs: 0 })).text();
    expect(text).toBe(`event: stream.error\ndata: {"code":"store_unavailable","message":"cannot open <path> (locked)"}\n\n`);
  });

  it("an answer refused with a library error naming a path: the refusal shows <path>", async () => {
    const handler = sseActionsHandler({
      resolve: () => {
        throw new StoreError("store_unavailable", `cannot open ${join(workspace, "threads.db")}`);
      },
    });
    const response = await handler(new Request("http://host/actions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ runId: "r", requestId: "q", approved: true }) }));
    const body = (await response.json()) as { ok: false; error: { message: string } };
    expect(body.error.message).toBe("cannot open <path>");
  });
});

describe("AI SDK bridge", () => {
  it("a failed run's error chunk shows <path>, not the workspace", async () => {
    const stream = failingAgent().stream("x");
    const chunks = await collect<AgentUIMessageChunk>(toUIMessageStream(stream));
    await stream.result.catch(() => undefined);
    expect(chunks.filter((chunk) => chunk.type === "error")).toEqual([{ type: "error", errorText: SHOWN }]);
    expect(JSON.stringify(chunks)).not.toContain(workspace);
  });
});

describe("AG-UI bridge", () => {
  it("toAgUi: a failed run's RUN_ERROR shows <path>, not the workspace", async () => {
    const stream = failingAgent().stream("x");
    const events = await collect<AgUiEvent>(toAgUi(stream, { threadId: "t" }));
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", message: SHOWN });
    expect(JSON.stringify(events)).not.toContain(workspace);
  });

  it("the endpoint: a failed run's RUN_ERROR shows <path>, not the workspace", async () => {
    const served = await serveHandler(await agUiHandler({ agent: failingAgent() }));
    cleanup.push(() => served.close());
    const { events } = await postRaw(served.url, userInput("t-fail", "r-1", "x"));
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", message: SHOWN });
    expect(JSON.stringify(events)).not.toContain(workspace);
  });
});

describe("AG-UI bridge, refusals", () => {
  it("a run that could not start, and a JSON error answer, show <path>", async () => {
    const missing = join(workspace, "missing");
    const [, refused] = errorEvents({ threadId: "t", runId: "r" }, new ConfigError(`the working directory does not exist: ${missing}`));
    expect(refused).toMatchObject({ type: "RUN_ERROR", code: "config_invalid", message: "the working directory does not exist: <path>" });
    const answer = jsonError(400, "invalid_input", `cannot answer for ${missing}`);
    expect(await answer.json()).toEqual({ error: { code: "invalid_input", message: "cannot answer for <path>" } });
  });
});

describe("clientEvent", () => {
  it("hides paths in run.failed and session.error only, and returns an event with nothing to hide as is", () => {
    const base = { seq: 1, runId: "r", at: 1 };
    const failed = { ...base, type: "run.failed", error: { code: "store_unavailable", message: "/srv/x failed", phase: "after_delivery", retryable: false } } as AgentEvent;
    expect(clientEvent(failed)).toEqual({ ...failed, error: { ...(failed as { error: object }).error, message: "<path> failed" } });
    expect((failed as { error: { message: string } }).error.message).toBe("/srv/x failed");
    const plain = { ...base, type: "run.failed", error: { code: "store_unavailable", message: "no path", phase: "after_delivery", retryable: false } } as AgentEvent;
    expect(clientEvent(plain)).toBe(plain);
    expect(clientEvent({ type: "session.error", code: "store_unavailable", message: "cannot write /srv/log" })).toEqual({ type: "session.error", code: "store_unavailable", message: "cannot write <path>" });
    const delta = { ...base, type: "message.delta", itemId: "m", text: "see /srv/x" } as AgentEvent;
    expect(clientEvent(delta)).toBe(delta);
  });
});
