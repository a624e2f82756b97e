/**
 * What core hands the host is redacted all the way down: an error's cause chain holds no key, and
 * no event, error or notice of a run shows the path of the run's input copies.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthRequiredError, createAgent, input, ProviderError, RunFailedError, type AgentEvent, type ApprovalRequest, type Driver } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const SECRET = "sk-test-canary-9d41c07be2";

/** Everything a host could print of an error: `util.inspect` shows message, stack, fields and causes. */
const printed = (error: unknown) => inspect(error, { depth: 10, showHidden: true });

async function settle(stream: AsyncIterable<AgentEvent> & { result: Promise<unknown> }): Promise<{ events: AgentEvent[]; error: unknown }> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const error = await stream.result.then(() => undefined, (e: unknown) => e);
  return { events, error };
}

describe("errors core hands the host carry only redacted text along their cause chain", () => {
  it("a run failed by a provider error quoting the key has a redacted cause", async () => {
    const base = fakeDriver({ script: { steps: [{ markDelivered: true }, { fail: { code: "provider_error", message: `the key ${SECRET} was rejected` } }] } });
    const driver: Driver = { ...base, secrets: () => [SECRET] };
    const agent = createAgent(driver);
    try {
      const { error } = await settle(agent.stream("hello"));
      expect(error).toBeInstanceOf(RunFailedError);
      expect((error as RunFailedError).cause).toBeInstanceOf(ProviderError);
      expect(((error as RunFailedError).cause as Error).message).toBe("the key [REDACTED] was rejected");
      expect(printed(error)).not.toContain(SECRET);
    } finally {
      await agent.close();
    }
  });

  it("inspect() and prepare() reject a driver's failure quoting the key with a redacted copy", async () => {
    const base = fakeDriver();
    const failing = async (): Promise<never> => {
      throw new ProviderError(`the key ${SECRET} was rejected`, { cause: new Error(`handshake with ${SECRET} failed`) });
    };
    const driver: Driver = { ...base, secrets: () => [SECRET], inspect: failing, prepare: failing };
    await using agent = createAgent(driver);
    for (const verb of [() => agent.inspect(), () => agent.prepare()]) {
      const error = await verb().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ code: "provider_error", message: "the key [REDACTED] was rejected" });
      expect(((error as Error).cause as Error).message).toBe("handshake with [REDACTED] failed");
      expect(printed(error)).not.toContain(SECRET);
    }
  });

  it("a run refused before delivery rejects with its own class, its text and causes redacted", async () => {
    const base = fakeDriver();
    const driver: Driver = {
      ...base,
      secrets: () => [SECRET],
      run: async () => {
        throw new AuthRequiredError(`the key ${SECRET} is not signed in`, { cause: new Error(`login with ${SECRET} failed`) });
      },
    };
    const agent = createAgent(driver);
    try {
      const { error } = await settle(agent.stream("hello"));
      expect(error).toBeInstanceOf(AuthRequiredError);
      expect(error).toMatchObject({ code: "auth_required", phase: "before_delivery", message: "the key [REDACTED] is not signed in" });
      expect(((error as Error).cause as Error).message).toBe("login with [REDACTED] failed");
      expect(printed(error)).not.toContain(SECRET);
    } finally {
      await agent.close();
    }
  });
});

describe("no event, error or notice of a run shows the path of its input copies", () => {
  let dir: string;
  let notesPath: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "aa-input-paths-"));
    notesPath = join(dir, "notes.txt");
    await writeFile(notesPath, "plain notes\n");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("a provider echoing the input copy's path in a tool title, an approval summary and its error shows <input:NAME> instead", async () => {
    const base = fakeDriver({ inputs: { image: { modes: [] }, file: { modes: ["workspace_reference"], mediaTypes: ["text/*"] }, audio: { modes: [] } } });
    let copyPath = "";
    const driver: Driver = {
      ...base,
      run: async (request, sink) => {
        copyPath = request.inputs[0]!.localPath;
        const copyDir = dirname(copyPath);
        request.markDelivered();
        await sink.emit({ type: "tool.started", callId: "call_1", kind: "read", title: `Read ${copyPath}`, rawInput: { path: copyPath, uri: `file://${copyPath}` } });
        await request.approve({
          requestId: "perm_1",
          kind: "permissions",
          callId: "call_1",
          summary: `Allow reading ${copyPath} (outside the workspace, in ${copyDir})`,
          options: [{ id: "allow", label: "Allow", kind: "allow_once" }],
        });
        await sink.emit({ type: "tool.completed", callId: "call_1", status: "completed", output: `read ${copyPath}` });
        throw new ProviderError(`cannot stat ${copyDir}/other.txt after reading ${copyPath}`);
      },
    };
    const seen: ApprovalRequest[] = [];
    const agent = createAgent(driver);
    try {
      const { events, error } = await settle(
        agent.stream("summarize", {
          inputs: [input.fromPath("file", notesPath, { mediaType: "text/plain" })],
          onApproval: async (request) => {
            seen.push(request);
            return { decision: "allow" };
          },
        }),
      );
      expect(copyPath).not.toBe("");
      const copyDir = dirname(copyPath);
      const visible = JSON.stringify(events) + printed(error) + JSON.stringify(seen);
      expect(visible).not.toContain(copyDir);
      expect(events.find((e) => e.type === "tool.started")).toMatchObject({ title: "Read <input:notes.txt>", rawInput: { path: "<input:notes.txt>", uri: "<input:notes.txt>" } });
      expect(events.find((e) => e.type === "approval.requested")).toMatchObject({ summary: "Allow reading <input:notes.txt> (outside the workspace, in <inputs>)" });
      expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ output: "read <input:notes.txt>" });
      expect(error).toBeInstanceOf(RunFailedError);
      expect((error as Error).message).toBe("cannot stat <inputs>/other.txt after reading <input:notes.txt>");
    } finally {
      await agent.close();
    }
  });
});
