/**
 * The server with no configuration runs the offline demo agent (the scripted model server and
 * the openai() driver): a prompt makes it ask to run a shell command; allowed over HTTP the file
 * appears, denied it does not, interrupted the next prompt asks again. And `close()` leaves
 * no child process: a fake agent running its scripts in real child processes, closed with a run in
 * flight and an event stream open.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readFrames, startServer, tempDir, until, type TestServer } from "./helpers.js";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Pending {
  approvals: { requestId: string; kind: string; summary: string; options: { id: string; kind: string }[] }[];
}

async function approvalOf(s: TestServer, id: string): Promise<Pending["approvals"][number]> {
  return until(async () => ((await (await s.api(`/api/sessions/${id}/pending`)).json()) as Pending).approvals[0]);
}

const idle = (s: TestServer, id: string) => until(async () => (((await (await s.api(`/api/sessions/${id}`)).json()) as { state: string }).state === "idle" ? true : undefined));

describe("the demo agent (no configuration)", () => {
  it("asks to run a shell command: allowed, the file is written; denied, it is not", async () => {
    const root = tempDir("aa-server-demo-");
    roots.push(root);
    const s = await startServer({ config: undefined, stateDir: join(root, "state") });
    try {
      const agents = (await (await s.api("/api/agents")).json()) as { agents: { name: string; driver: { id: string }; workspace: string }[] };
      expect(agents.agents).toEqual([expect.objectContaining({ name: "demo", driver: expect.objectContaining({ id: "openai" }) })]);
      const workspace = agents.agents[0]!.workspace;
      expect(workspace.startsWith(join(root, "state"))).toBe(true);
      const file = join(workspace, "hello.txt");

      const { id } = (await (await s.api("/api/sessions", { json: { agent: "demo" } })).json()) as { id: string };
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "show me a tool call" } });
      const approval = await approvalOf(s, id);
      expect(approval).toMatchObject({ kind: "command", summary: expect.stringContaining("hello.txt") });
      expect(existsSync(file)).toBe(false);
      expect((await s.api(`/api/sessions/${id}/approvals/${approval.requestId}`, { json: { decision: "allow" } })).status).toBe(200);
      await idle(s, id);
      expect(readFileSync(file, "utf8")).toBe("hello from the demo agent\n");
      const abort = new AbortController();
      const frames = await readFrames(await s.api(`/api/sessions/${id}/events`, { signal: abort.signal }), (f) => f.some((x) => x.event === "run.completed"), abort);
      const completed = frames.find((f) => f.event === "tool.completed");
      expect(JSON.parse(completed!.data!)).toMatchObject({ status: "completed", exitCode: 0 });
      const answer = frames.filter((f) => f.event === "message.completed").at(-1);
      expect(JSON.parse(answer!.data!).text).toContain("## Done");

      rmSync(file);
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "once more" } });
      const second = await approvalOf(s, id);
      await s.api(`/api/sessions/${id}/approvals/${second.requestId}`, { json: { decision: "deny", message: "not this time" } });
      await idle(s, id);
      expect(existsSync(file)).toBe(false);

      // Interrupted while the approval waits: the next prompt asks again, and is answered once allowed.
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "and interrupt" } });
      await approvalOf(s, id);
      await s.api(`/api/sessions/${id}/interrupt`, { method: "POST" });
      await idle(s, id);
      const { lastSeq } = (await (await s.api(`/api/sessions/${id}`)).json()) as { lastSeq: number };
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "after the interrupt" } });
      const again = await approvalOf(s, id);
      expect(again.kind).toBe("command");
      await s.api(`/api/sessions/${id}/approvals/${again.requestId}`, { json: { decision: "allow" } });
      await idle(s, id);
      const cut = new AbortController();
      const after = await readFrames(await s.api(`/api/sessions/${id}/events?after=${lastSeq}`, { signal: cut.signal }), (f) => f.some((x) => x.event === "run.completed" || x.event === "run.failed"), cut);
      expect(after.filter((f) => f.event === "run.failed")).toEqual([]);
      expect(JSON.parse(after.filter((f) => f.event === "message.completed").at(-1)!.data!).text).toContain("## Done");
      expect(readFileSync(file, "utf8")).toBe("hello from the demo agent\n");
    } finally {
      await s.close();
    }
  });
});

/** Pids whose parent is this process. */
function children(): number[] {
  const mine = String(process.pid);
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
        return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] === mine;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

describe("close()", () => {
  it("ends event streams, closes sessions and agents and reaps every child process", async () => {
    const before = children();
    const root = tempDir("aa-server-close-");
    roots.push(root);
    const s = await startServer({
      stateDir: join(root, "state"),
      config: {
        agents: {
          proc: {
            driver: "fake",
            workspace: root,
            options: { process: true, scripts: [{ promptContains: "wait", script: { steps: [{ markDelivered: true }, { waitForAbort: true }] } }] },
          },
        },
      },
    });
    const { id } = (await (await s.api("/api/sessions", { json: { agent: "proc" } })).json()) as { id: string };
    const stream = await s.api(`/api/sessions/${id}/events`);
    await s.api(`/api/sessions/${id}/submit`, { json: { text: "wait for the close" } });
    await until(async () => (((await (await s.api(`/api/sessions/${id}`)).json()) as { inFlight?: unknown }).inFlight ? true : undefined));
    const spawned = children().filter((pid) => !before.includes(pid));
    expect(spawned.length).toBeGreaterThan(0);
    const reading = readFrames(stream, () => false);
    await s.close();
    await reading; // the open stream ended with the server
    // None left running; one that just exited is reaped when Node handles its SIGCHLD.
    expect(children().filter((pid) => !before.includes(pid) && !zombie(pid))).toEqual([]);
    await until(async () => (children().some((pid) => !before.includes(pid)) ? undefined : true));
    await expect(fetch(`${s.url}/api/health`)).rejects.toThrow();
  });
});
