/**
 * The kit's inspect-then-keep-the-connection: a connection that cannot start becomes every panel
 * unavailable with a reason code (never the path tried, secrets scrubbed); an invalid config and
 * a closed driver are thrown; the connection is kept only when asked and still alive.
 */
import { describe, expect, it } from "vitest";

import { inspectOverConnection, keepAsStandby, type ConnectionInspection } from "../../../src/driver/kit/inspect.js";
import { ClaimableStandby } from "../../../src/driver/kit/standby.js";
import type { OwnedConnection } from "../../../src/driver/kit/processes.js";
import { observed } from "../../../src/driver/observations.js";
import { PANEL_NAMES, type Evidence } from "../../../src/inspect/types.js";
import type { InspectResponse } from "../../../src/driver/types.js";
import { AuthRequiredError, ConfigError, ExecutableNotFoundError, ProviderError } from "../../../src/errors/index.js";
import { createRedactor } from "../../../src/redact/redact.js";

/** Protocol logic only: an in-memory connection stands in for a process. */
class MemoryConnection implements OwnedConnection {
  readonly pid = 4242;
  alive = true;
  closes = 0;
  readonly exited = Promise.resolve();
  async close(): Promise<void> {
    this.closes++;
    this.alive = false;
  }
}

const SECRET = "sk-kit-test-secret-0123456789";
const proof: Evidence[] = [{ transport: "memory", method: "m", scope: "process", observedAt: "2026-01-01T00:00:00.000Z", durationMs: 0 }];
const panels = Object.fromEntries(PANEL_NAMES.map((name) => [name, observed({}, proof)])) as unknown as Omit<InspectResponse, "secrets">;

function how(open: () => Promise<MemoryConnection>, extra: Partial<ConnectionInspection<MemoryConnection>> = {}): ConnectionInspection<MemoryConnection> {
  return { open, inspect: async () => panels, secrets: [SECRET], redactor: createRedactor({ secrets: [SECRET] }), ...extra };
}

const failing = (error: unknown) => () => Promise.reject(error);

async function reasons(error: unknown, extra: Partial<ConnectionInspection<MemoryConnection>> = {}) {
  const { inspection, connection } = await inspectOverConnection(how(failing(error), extra), new AbortController().signal, true);
  expect(connection).toBeUndefined();
  expect(inspection.secrets).toEqual([SECRET]);
  for (const name of PANEL_NAMES) expect(inspection[name].status).toBe("unavailable");
  return inspection.models.status === "unavailable" ? inspection.models.reason : undefined;
}

describe("inspectOverConnection", () => {
  it("reports a missing executable without the path tried", async () => {
    const reason = await reasons(new ExecutableNotFoundError("/secret/place/kit-cli", undefined, { install: "npm i kit-cli" }));
    expect(reason?.code).toBe("executable_not_found");
    expect(reason?.message).not.toContain("/secret/place");
  });

  it("keeps timeout as its own code, auth_required only where the driver says so, anything else as provider_error", async () => {
    expect((await reasons(new ProviderError("no answer", { code: "timeout" })))?.code).toBe("timeout");
    expect((await reasons(new AuthRequiredError("log in")))?.code).toBe("provider_error");
    expect((await reasons(new AuthRequiredError("log in"), { reportedCodes: ["auth_required"] }))?.code).toBe("auth_required");
    expect((await reasons(new ProviderError("refused", { code: "method_unsupported" })))?.code).toBe("provider_error");
  });

  it("describes an untyped failure by the driver's words and scrubs secrets from it", async () => {
    const reason = await reasons(new Error(`boom ${SECRET}`), { describeUntyped: (error) => `the CLI could not be started: ${String(error)}` });
    expect(reason?.code).toBe("provider_error");
    expect(reason?.message).toMatch(/^the CLI could not be started: Error: boom /);
    expect(reason?.message).not.toContain(SECRET);
  });

  it("throws an invalid config and a closed driver instead of observing them", async () => {
    await expect(inspectOverConnection(how(failing(new ConfigError("bad"))), new AbortController().signal, false)).rejects.toBeInstanceOf(ConfigError);
    const closed = new ProviderError("x: the driver is closed", { code: "driver_closed" });
    await expect(inspectOverConnection(how(failing(closed)), new AbortController().signal, false)).rejects.toBe(closed);
  });

  it("rethrows the abort reason when the start failed because the caller aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("caller gave up"));
    await expect(inspectOverConnection(how(failing(new Error("killed"))), controller.signal, false)).rejects.toThrow("caller gave up");
  });

  it("keeps a live connection only when asked", async () => {
    const kept = new MemoryConnection();
    const keep = await inspectOverConnection(how(async () => kept), new AbortController().signal, true);
    expect(keep.connection).toBe(kept);
    expect(kept.closes).toBe(0);
    expect(keep.inspection.models.status).toBe("observed");

    const dropped = new MemoryConnection();
    const drop = await inspectOverConnection(how(async () => dropped), new AbortController().signal, false);
    expect(drop.connection).toBeUndefined();
    expect(dropped.closes).toBe(1);
  });

  it("closes the connection and rethrows when reading the panels fails", async () => {
    const connection = new MemoryConnection();
    const failure = new Error("panel reader broke");
    const inspecting = inspectOverConnection(how(async () => connection, { inspect: () => Promise.reject(failure) }), new AbortController().signal, true);
    await expect(inspecting).rejects.toBe(failure);
    expect(connection.closes).toBe(1);
  });
});

describe("keepAsStandby", () => {
  const inspection = { ...panels, secrets: [] };

  it("is transient without a kept connection", async () => {
    expect(await keepAsStandby({ inspection }, new AbortController().signal, () => expect.fail("no standby without a connection"))).toEqual({ inspection, process: "transient" });
  });

  it("is ready with the driver's standby over the kept connection", async () => {
    const connection = new MemoryConnection();
    const owner = {};
    const prepared = await keepAsStandby({ inspection, connection }, new AbortController().signal, (c) => new ClaimableStandby(c, owner));
    expect(prepared.process).toBe("ready");
    expect((prepared.standby as ClaimableStandby<MemoryConnection>).claim(owner)).toBe(connection);
  });

  it("closes the kept connection and rejects when the prepare was aborted meanwhile", async () => {
    const connection = new MemoryConnection();
    const controller = new AbortController();
    controller.abort(new Error("prepare aborted"));
    await expect(keepAsStandby({ inspection, connection }, controller.signal, (c) => new ClaimableStandby(c, {}))).rejects.toThrow("prepare aborted");
    expect(connection.closes).toBe(1);
  });
});
