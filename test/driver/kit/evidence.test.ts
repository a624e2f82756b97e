/** The kit's evidence builder and recorder: one clock, one rounding (0.01 ms), `process` scope by default. */
import { describe, expect, it } from "vitest";

import { evidence, evidenceClock, EvidenceRecorder } from "../../../src/driver/kit/evidence.js";

describe("evidence", () => {
  it("rounds a given duration to 0.01 ms and never reports a negative one", () => {
    expect(evidence({ transport: "t", method: "m", durationMs: 12.3456 }).durationMs).toBe(12.35);
    expect(evidence({ transport: "t", method: "m", durationMs: -3 }).durationMs).toBe(0);
  });

  it("measures from a reading of the evidence clock", () => {
    const startedAt = evidenceClock();
    const record = evidence({ transport: "t", method: "m", startedAt });
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
    expect(Math.round(record.durationMs * 100)).toBe(record.durationMs * 100);
  });

  it("defaults the scope to process and names the provider version only when known", () => {
    const plain = evidence({ transport: "t", method: "m", durationMs: 1 });
    expect(plain).toMatchObject({ transport: "t", method: "m", scope: "process", durationMs: 1 });
    expect(plain).not.toHaveProperty("providerVersion");
    expect(Number.isNaN(Date.parse(plain.observedAt))).toBe(false);
    expect(evidence({ transport: "t", method: "m", durationMs: 1, scope: "account", providerVersion: "1.2.3" })).toMatchObject({ scope: "account", providerVersion: "1.2.3" });
  });
});

describe("EvidenceRecorder", () => {
  it("records an answered call and a failed one, with the transport, scope and version", async () => {
    const recorder = new EvidenceRecorder("t (stdio)", "1.0.0");
    const answered = await recorder.measure("list", () => Promise.resolve(42), "account");
    expect(answered).toMatchObject({ value: 42, evidence: { transport: "t (stdio)", method: "list", scope: "account", providerVersion: "1.0.0" } });
    const failure = new Error("refused");
    const failed = await recorder.measure("read", () => Promise.reject(failure));
    expect(failed).toMatchObject({ error: failure, evidence: { method: "read", scope: "process", providerVersion: "1.0.0" } });
    expect(failed).not.toHaveProperty("value");
  });

  it("records a call timed elsewhere with the builder's rounding", () => {
    const record = new EvidenceRecorder("t").record("initialize", { durationMs: 3.14159 });
    expect(record).toMatchObject({ transport: "t", method: "initialize", scope: "process", durationMs: 3.14 });
    expect(record).not.toHaveProperty("providerVersion");
  });

  it("keeps a known version, and stamps it only on records that name none", () => {
    const recorder = new EvidenceRecorder("t");
    const early = recorder.record("initialize", { durationMs: 1 });
    const other = evidence({ transport: "t", method: "m", durationMs: 1, providerVersion: "0.9" });
    expect(recorder.stamp([early])).toEqual([early]);
    recorder.providerVersion = "2.0";
    recorder.providerVersion = undefined;
    expect(recorder.providerVersion).toBe("2.0");
    const [stamped, kept] = recorder.stamp([early, other]);
    expect(stamped).toEqual({ ...early, providerVersion: "2.0" });
    expect(kept).toBe(other);
    expect(early).not.toHaveProperty("providerVersion");
  });
});
