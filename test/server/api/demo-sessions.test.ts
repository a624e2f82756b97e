/**
 * The demo agent's model answers each request on its own, so sessions never get out of step: two
 * sessions whose approvals are answered in the opposite order both ask and answer, and a prompt
 * after an approval interrupted mid-wait asks again, as does a session continued after a restart
 * (whose call ids repeat those of before).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readFrames, startServer, tempDir, until, type Frame, type TestServer } from "./helpers.js";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Approval {
  requestId: string;
  kind: string;
}

const approvalOf = (s: TestServer, id: string): Promise<Approval> =>
  until(async () => ((await (await s.api(`/api/sessions/${id}/pending`)).json()) as { approvals: Approval[] }).approvals[0]);

const lastSeq = async (s: TestServer, id: string): Promise<number> => ((await (await s.api(`/api/sessions/${id}`)).json()) as { lastSeq: number }).lastSeq;

async function created(s: TestServer): Promise<string> {
  const response = await s.api("/api/sessions", { json: { agent: "demo" } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** The frames after `after` up to the end of the next run. */
async function runAfter(s: TestServer, id: string, after: number): Promise<Frame[]> {
  const abort = new AbortController();
  const ended = (f: Frame[]): boolean => f.some((x) => x.event === "run.completed" || x.event === "run.failed" || x.event === "run.cancelled");
  return readFrames(await s.api(`/api/sessions/${id}/events?after=${after}`, { signal: abort.signal }), ended, abort);
}

function toolStatus(frames: Frame[]): unknown {
  const completed = frames.find((f) => f.event === "tool.completed");
  return completed === undefined ? undefined : (JSON.parse(completed.data!) as { status: string }).status;
}

function expectAnswered(frames: Frame[]): void {
  expect(frames.filter((f) => f.event === "run.failed").map((f) => f.data)).toEqual([]);
  expect(frames.filter((f) => f.event === "approval.requested")).toHaveLength(1);
  expect(frames.some((f) => f.event === "run.completed")).toBe(true);
  expect(JSON.parse(frames.filter((f) => f.event === "message.completed").at(-1)!.data!).text).toContain("## Done");
}

describe("the demo agent across sessions", () => {
  it("asks and answers in two sessions whose approvals are answered in the opposite order", async () => {
    const root = tempDir("aa-server-demo-two-");
    roots.push(root);
    const s = await startServer({ config: undefined, stateDir: join(root, "state") });
    try {
      const file = join(((await (await s.api("/api/agents")).json()) as { agents: { workspace: string }[] }).agents[0]!.workspace, "hello.txt");
      const a = await created(s);
      const b = await created(s);
      const [fromA, fromB] = [await lastSeq(s, a), await lastSeq(s, b)];
      await s.api(`/api/sessions/${a}/submit`, { json: { text: "first session" } });
      const approvalA = await approvalOf(s, a);
      await s.api(`/api/sessions/${b}/submit`, { json: { text: "second session" } });
      const approvalB = await approvalOf(s, b);
      // Each request gets its own call id, so neither session's call can be taken for the other's.
      expect(approvalB.requestId).not.toBe(approvalA.requestId);

      expect((await s.api(`/api/sessions/${b}/approvals/${approvalB.requestId}`, { json: { decision: "deny" } })).status).toBe(200);
      const framesB = await runAfter(s, b, fromB);
      expectAnswered(framesB);
      expect(toolStatus(framesB)).toBe("declined");
      expect(existsSync(file)).toBe(false);

      expect((await s.api(`/api/sessions/${a}/approvals/${approvalA.requestId}`, { json: { decision: "allow" } })).status).toBe(200);
      const framesA = await runAfter(s, a, fromA);
      expectAnswered(framesA);
      expect(toolStatus(framesA)).toBe("completed");
      expect(readFileSync(file, "utf8")).toBe("hello from the demo agent\n");

      // Both sessions carry on: the next prompt of each asks again.
      for (const id of [b, a]) {
        const from = await lastSeq(s, id);
        await s.api(`/api/sessions/${id}/submit`, { json: { text: "once more" } });
        const approval = await approvalOf(s, id);
        await s.api(`/api/sessions/${id}/approvals/${approval.requestId}`, { json: { decision: "allow" } });
        expectAnswered(await runAfter(s, id, from));
      }
    } finally {
      await s.close();
    }
  });

  it("asks again on the prompt after an approval interrupted mid-wait, while another session waits", async () => {
    const root = tempDir("aa-server-demo-interrupt-");
    roots.push(root);
    const s = await startServer({ config: undefined, stateDir: join(root, "state") });
    try {
      const waiting = await created(s);
      const fromWaiting = await lastSeq(s, waiting);
      await s.api(`/api/sessions/${waiting}/submit`, { json: { text: "wait for me" } });
      const waitingApproval = await approvalOf(s, waiting);

      const c = await created(s);
      await s.api(`/api/sessions/${c}/submit`, { json: { text: "to be interrupted" } });
      await approvalOf(s, c);
      expect(await (await s.api(`/api/sessions/${c}/interrupt`, { method: "POST" })).json()).toEqual({ wasRunning: true });
      await until(async () => (((await (await s.api(`/api/sessions/${c}`)).json()) as { state: string }).state === "idle" ? true : undefined));

      const fromC = await lastSeq(s, c);
      await s.api(`/api/sessions/${c}/submit`, { json: { text: "after the interrupt" } });
      const again = await approvalOf(s, c);
      expect(again.kind).toBe("command");
      await s.api(`/api/sessions/${c}/approvals/${again.requestId}`, { json: { decision: "allow" } });
      expectAnswered(await runAfter(s, c, fromC));

      await s.api(`/api/sessions/${waiting}/approvals/${waitingApproval.requestId}`, { json: { decision: "allow" } });
      expectAnswered(await runAfter(s, waiting, fromWaiting));
    } finally {
      await s.close();
    }
  });

  it("asks and answers in a session continued after a restart on the same state directory", async () => {
    const root = tempDir("aa-server-demo-restart-");
    roots.push(root);
    const stateDir = join(root, "state");
    const first = await startServer({ config: undefined, stateDir });
    let id: string;
    let before: string;
    try {
      id = await created(first);
      const from = await lastSeq(first, id);
      await first.api(`/api/sessions/${id}/submit`, { json: { text: "before the restart" } });
      const approval = await approvalOf(first, id);
      before = approval.requestId;
      await first.api(`/api/sessions/${id}/approvals/${approval.requestId}`, { json: { decision: "allow" } });
      expectAnswered(await runAfter(first, id, from));
    } finally {
      await first.close();
    }
    // A new model server numbers its call ids from the start again: the conversation repeats one.
    const second = await startServer({ config: undefined, stateDir });
    try {
      const from = await lastSeq(second, id);
      await second.api(`/api/sessions/${id}/submit`, { json: { text: "after the restart" } });
      const approval = await approvalOf(second, id);
      expect(approval.requestId).toBe(before);
      await second.api(`/api/sessions/${id}/approvals/${approval.requestId}`, { json: { decision: "allow" } });
      expectAnswered(await runAfter(second, id, from));
    } finally {
      await second.close();
    }
  });
});
