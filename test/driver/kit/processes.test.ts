/** The kit's owned processes: stats, the "driver closed" rule around open, and close() reaping every live one — over real children. */
import { describe, expect, it } from "vitest";

import { OwnedProcesses } from "../../../src/driver/kit/processes.js";
import { ExecutableNotFoundError, ProviderError } from "../../../src/errors/index.js";
import { spawnLaunch } from "../../../src/driver/kit/connection.js";
import { createRedactor } from "../../../src/redact/redact.js";
import { deferred, NodeConnection } from "./helpers.js";

describe("OwnedProcesses", () => {
  it("counts every start and lists the live pids until each process exits", async () => {
    const owned = new OwnedProcesses<NodeConnection>("kit-test");
    const first = await owned.open((track) => NodeConnection.start(track));
    const second = await owned.open((track) => NodeConnection.start(track));
    expect(owned.stats()).toEqual({ live: [first.pid, second.pid], started: 2 });

    await first.close();
    expect(first.alive).toBe(false);
    expect(owned.stats()).toEqual({ live: [second.pid], started: 2 });

    await owned.close();
    expect(second.alive).toBe(false);
    expect(second.exits).toBe(1);
    expect(owned.stats()).toEqual({ live: [], started: 2 });
  });

  it("refuses to start once closed, without calling the start function", async () => {
    const owned = new OwnedProcesses<NodeConnection>("kit-test");
    await owned.close();
    let started = false;
    const opening = owned.open(async (track) => {
      started = true;
      return NodeConnection.start(track);
    });
    await expect(opening).rejects.toMatchObject({ code: "driver_closed", phase: "before_delivery", message: "kit-test: the driver is closed" });
    await expect(opening).rejects.toBeInstanceOf(ProviderError);
    expect(started).toBe(false);
    expect(owned.closed).toBe(true);
  });

  it("closes and refuses a connection that finished starting while the driver closed", async () => {
    const owned = new OwnedProcesses<NodeConnection>("kit-test");
    const spawned = deferred<NodeConnection>();
    const gate = deferred();
    const opening = owned.open(async (track) => {
      const connection = await NodeConnection.start(track);
      spawned.resolve(connection);
      await gate.promise;
      return connection;
    });
    // The process is spawned and its handshake (the gate) is pending: close the driver now.
    const connection = await spawned.promise;
    const closing = owned.close();
    gate.resolve();
    await expect(opening).rejects.toMatchObject({ code: "driver_closed" });
    await closing;
    expect(connection.alive).toBe(false);
    expect(owned.stats()).toEqual({ live: [], started: 1 });
  });

  it("explains a missing executable with the install hint", async () => {
    const owned = new OwnedProcesses<NodeConnection>("kit-test", "npm install -g kit-test-cli");
    const opening = owned.open(async () => {
      await spawnLaunch({ command: "kit-test-no-such-cli", args: [], cwd: process.cwd(), env: {}, inheritEnv: [], redactor: createRedactor() });
      throw new Error("unreachable: the spawn must fail");
    });
    await expect(opening).rejects.toBeInstanceOf(ExecutableNotFoundError);
    await expect(opening).rejects.toMatchObject({ code: "executable_not_found", install: "npm install -g kit-test-cli" });
  });
});
