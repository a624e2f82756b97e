/**
 * A host killed mid-run behind the attach server: `serve` (the built CLI, SQLite store in its
 * state directory) runs as a child in its own process group; a session's run is in flight (a
 * fake-driver run that waits until cancelled) when the whole group is killed with SIGKILL. A new
 * `serve` on the same state directory restores the session: its interrupted run reads
 * `host_restart` in the event log, and the next message runs to completion.
 */
import { once } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { readFrames, until, type Frame } from "../server/api/helpers.js";
import { startServe, useServeDir, type ServeChild } from "./serve-child.js";

const TOKEN = "restart-test-token-0123456789";

const fx = useServeDir("aa-serve-restart-", {
  scripts: [{ promptContains: "slow", script: { steps: [{ markDelivered: true }, { waitForAbort: true }] } }],
  script: { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m2", text: "done after the restart" } }] },
});

interface Serving extends ServeChild {
  api(path: string, json?: unknown): Promise<Response>;
}

/** `serve` as the leader of its own process group, so the test can kill the whole host at once. */
async function serve(): Promise<Serving> {
  const served = await startServe(["--config", fx.configFile, "--state-dir", fx.stateDir], { AGENT_ADAPTOR_TOKEN: TOKEN }, { detached: true });
  const api = (path: string, json?: unknown) =>
    fetch(`${served.url}${path}`, {
      method: json === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${TOKEN}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  return { ...served, api };
}

/** Whether any process of group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const eventTypes = (frames: Frame[]) => frames.flatMap((f) => (f.data ? [JSON.parse(f.data) as { type: string; code?: string; runId?: string; state?: string }] : []));

const started: Serving[] = [];

afterAll(() => {
  for (const s of started) if (s.child.pid !== undefined && groupAlive(s.child.pid)) process.kill(-s.child.pid, "SIGKILL");
});

describe("a host killed mid-run", () => {
  it("restores the session on restart: the run in flight reads host_restart and the next message runs", { timeout: 150_000 }, async () => {
    const first = await serve();
    started.push(first);
    expect((await first.api("/api/sessions", { agent: "worker", id: "survivor" })).status).toBe(201);
    expect((await first.api("/api/sessions/survivor/submit", { text: "a slow task" })).status).toBe(202);
    const running = await until(async () => {
      const view = (await (await first.api("/api/sessions/survivor")).json()) as { state: string; inFlight?: { runId: string } };
      return view.state === "running" && view.inFlight ? view.inFlight.runId : undefined;
    });

    const pgid = first.child.pid!;
    const exited = once(first.child, "exit");
    process.kill(-pgid, "SIGKILL");
    expect((await exited)[1]).toBe("SIGKILL");
    await until(async () => (groupAlive(pgid) ? undefined : true));

    const second = await serve();
    started.push(second);
    // The stored record says what the killed host last wrote: the run in flight.
    const stored = (await (await second.api("/api/sessions/survivor")).json()) as { inFlight?: { runId: string } };
    expect(stored.inFlight?.runId).toBe(running);

    // The killed host's ownership of the session lapses (docs/server.md: within 30 s); until then opening it is refused.
    const events = await until(async () => {
      const response = await second.api("/api/sessions/survivor/events");
      if (response.status === 200) return response;
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("session_owned");
      return undefined;
    }, 250);
    const abort = new AbortController();
    const replayed = eventTypes(await readFrames(events, (frames) => eventTypes(frames).some((e) => e.type === "session.run_interrupted"), abort));
    expect(replayed.find((e) => e.type === "session.run_interrupted")).toMatchObject({ runId: running, code: "host_restart" });

    const view = (await (await second.api("/api/sessions/survivor")).json()) as { state: string; inFlight?: unknown; live: boolean };
    expect(view.live).toBe(true);
    expect(view.inFlight).toBeUndefined();
    expect(view.state).not.toBe("running");

    expect((await second.api("/api/sessions/survivor/submit", { text: "carry on" })).status).toBe(202);
    const after = await second.api(`/api/sessions/survivor/events`);
    const tail = eventTypes(await readFrames(after, (frames) => eventTypes(frames).some((e) => e.type === "run.completed"), new AbortController()));
    expect(tail.filter((e) => e.type === "run.completed")).toHaveLength(1);
    expect(tail.some((e) => e.type === "run.cancelled" || e.type === "run.failed")).toBe(false);

    second.child.kill("SIGTERM");
    expect((await once(second.child, "exit"))[0]).toBe(0);
  });
});
