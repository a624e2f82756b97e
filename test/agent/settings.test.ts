/**
 * A call's effective settings and the standby signature. The signature is put together from parts
 * encoded once per agent: it must stay exactly the hash of the whole settings object, and follow
 * the driver's config fingerprint when that changes.
 */
import { describe, expect, it } from "vitest";

import { CallSettings } from "../../src/agent/settings.js";
import { signatureOf } from "../../src/driver/signature.js";
import type { ResolvedResources } from "../../src/driver/types.js";
import { fakeDriver } from "../../src/testing/index.js";

const resources: ResolvedResources = {
  instructions: "be brief",
  tools: [{ name: "lookup", description: "finds", inputSchema: { type: "object", properties: { id: { type: "number" } } } }],
  skills: [],
  mcp: [{ name: "files", command: "srv", args: ["--x"], env: { B: "2", A: "1" } }],
};

describe("call settings", () => {
  it("signs exactly the whole settings object, and follows the driver's config fingerprint", () => {
    let fingerprint: string | undefined = "config-1";
    const driver = Object.assign(fakeDriver(), { fingerprint: () => fingerprint as string });
    const settings = new CallSettings(driver, "fake", "/work/space", resources, { model: "default-model", policy: { sandbox: "read-only" } });
    const whole = (call: ReturnType<CallSettings["effective"]>) =>
      signatureOf({ driver: "fake", driverConfig: fingerprint ?? null, workspace: "/work/space", resources, model: call.model, effort: call.effort, policy: call.policy });
    const calls = [undefined, { model: "other" }, { effort: "high" }, { model: undefined }, { policy: { sandbox: "workspace-write" as const, network: true } }];
    const seen = new Set<string>();
    for (const step of ["config-1", "config-2", undefined]) {
      fingerprint = step;
      for (const call of calls) {
        const effective = settings.effective(call);
        expect(settings.signature(effective)).toBe(whole(effective));
        seen.add(settings.signature(effective));
      }
    }
    expect(seen.size).toBe(calls.length * 3);
  });

  it("merges the call over the defaults, leaving out keys that hold undefined and what is resolved elsewhere", () => {
    const settings = new CallSettings(fakeDriver(), "fake", "/w", resources, { model: "default-model", effort: "low", metadata: { a: "1" }, policy: { sandbox: "read-only" } });
    const signal = new AbortController().signal;
    const effective = settings.effective({ model: undefined, metadata: { b: "2" }, policy: { network: false }, signal, services: [] });
    expect(effective).toEqual({ effort: "low", metadata: { b: "2" }, policy: { sandbox: "read-only", network: false } });
    expect(Object.values(effective)).not.toContain(undefined);
    expect(settings.effective()).toEqual({ model: "default-model", effort: "low", metadata: { a: "1" }, policy: { sandbox: "read-only" } });
  });

  it("gives every call that sets nothing its own policy and watchdogs, equal to a full merge's", () => {
    const defaults = { model: "default-model", policy: { sandbox: "read-only" as const }, watchdogs: { idleMs: 5 } };
    const settings = new CallSettings(fakeDriver(), "fake", "/w", resources, defaults);
    const first = settings.effective();
    first.policy.network = true;
    first.watchdogs!.idleMs = 9;
    first.model = "changed";
    const merged = { model: "default-model", policy: { sandbox: "read-only" }, watchdogs: { idleMs: 5 } };
    expect(settings.effective()).toEqual(merged);
    expect(settings.effective({ signal: new AbortController().signal, services: [] })).toEqual(merged);
    // A call that sets something is merged in full, over the same defaults.
    expect(settings.effective({ effort: "high" })).toEqual({ ...merged, effort: "high" });
    expect(settings.effective().policy).not.toBe(settings.effective().policy);
  });
});
