import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareReportFolders, findForbiddenNames, REPORTS } from "../scripts/api-report-lib.mjs";

const etc = join(import.meta.dirname, "..", "etc");
const ROOT_REPORT = "agent-adaptor.api.md";
const TESTING_REPORT = "agent-adaptor-testing.api.md";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A committed/generated pair of folders, both holding copies of the reports in etc/. */
function reportFolders(): { committed: string; generated: string } {
  const base = mkdtempSync(join(tmpdir(), "api-report-"));
  temps.push(base);
  const committed = join(base, "etc");
  const generated = join(base, "temp");
  for (const dir of [committed, generated]) {
    for (const { report } of REPORTS) cpSync(join(etc, report), join(dir, report));
  }
  return { committed, generated };
}

function edit(path: string, change: (text: string) => string): void {
  const before = readFileSync(path, "utf8");
  const after = change(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
}

describe("API report comparison", () => {
  it("finds no change between identical reports", () => {
    const { committed, generated } = reportFolders();
    expect(compareReportFolders(committed, generated).filter((r) => r.changed)).toEqual([]);
  });

  it("detects a member added to a generated report and shows it", () => {
    const { committed, generated } = reportFolders();
    edit(join(generated, ROOT_REPORT), (text) =>
      text.replace(/^export interface CallOptions\b.*\{$/m, "$&\n    retries?: number;"),
    );
    const [root, testing] = compareReportFolders(committed, generated);
    expect(root).toMatchObject({ report: ROOT_REPORT, changed: true });
    expect(root?.diff).toContain("+     retries?: number;");
    expect(testing).toMatchObject({ report: TESTING_REPORT, changed: false });
  });

  it("detects a removed export in the committed copy", () => {
    const { committed, generated } = reportFolders();
    edit(join(committed, TESTING_REPORT), (text) =>
      text.replace("export function fakeDriver(options?: FakeDriverOptions): FakeDriver;", ""),
    );
    const testing = compareReportFolders(committed, generated).find((r) => r.report === TESTING_REPORT);
    expect(testing?.changed).toBe(true);
    expect(testing?.diff.join("\n")).toContain("export function fakeDriver(options?: FakeDriverOptions): FakeDriver;");
  });

  it("ignores whitespace-only differences, as api-extractor does", () => {
    const { committed, generated } = reportFolders();
    edit(join(generated, ROOT_REPORT), (text) => text.replace(/\n/g, "\r\n"));
    expect(compareReportFolders(committed, generated, [ROOT_REPORT])[0]?.changed).toBe(false);
  });

  it("counts a missing committed report as a change", () => {
    const { committed, generated } = reportFolders();
    rmSync(join(committed, ROOT_REPORT));
    expect(compareReportFolders(committed, generated, [ROOT_REPORT])[0]?.changed).toBe(true);
  });
});

describe("forbidden names in the public API", () => {
  const rootReport = () => readFileSync(join(etc, ROOT_REPORT), "utf8");

  it("the committed reports are clean", () => {
    for (const { report } of REPORTS) expect(findForbiddenNames(readFileSync(join(etc, report), "utf8"))).toEqual([]);
  });

  it("flags `timeout?: number` inside CallOptions", () => {
    const text = rootReport().replace(/^(export interface CallOptions\b.*\{\n(?:.*\n)*?)\}$/m, "$1    timeout?: number;\n}");
    const findings = findForbiddenNames(text);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ name: "CallOptions.timeout", text: "timeout?: number;" });
    expect(text.split("\n")[findings[0]!.line - 1]?.trim()).toBe("timeout?: number;");
  });

  it("flags a timeout call option declared on CallDefaults or on a base it extends", () => {
    const onDefaults = rootReport().replace(/^export interface CallDefaults\b.*\{$/m, '$&\n    readonly "timeout"?: number;');
    expect(findForbiddenNames(onDefaults).map((f) => f.name)).toEqual(["CallDefaults.timeout"]);

    const viaBase = [
      "export interface CallOptions extends CallDefaults, Limits {",
      "    signal?: AbortSignal;",
      "}",
      "export interface CallDefaults {",
      "    model?: string;",
      "}",
      "export interface Limits {",
      "    timeout: number;",
      "}",
    ].join("\n");
    expect(findForbiddenNames(viaBase).map((f) => f.name)).toEqual(["CallOptions.timeout (inherited from Limits)"]);
  });

  it("does not flag timeout-like names elsewhere", () => {
    const text = [
      "export interface ConformanceFixtures {",
      "    timeoutMs?: number;",
      "    timeout?: number;",
      "}",
      "export interface CallOptions extends CallDefaults {",
      "    // (undocumented)",
      "    policy?: {",
      "        timeout?: number;",
      "    };",
      "    signal?: AbortSignal;",
      "    timeoutMs?: number;",
      "}",
      "export interface CallDefaults {",
      "    onTimeout?: () => void;",
      "}",
    ].join("\n");
    expect(findForbiddenNames(text)).toEqual([]);
  });

  it("flags the names the design rules out, as whole identifiers", () => {
    const text = [
      "export class Inspector {",
      "}",
      "export interface Agent {",
      "    profileState(): unknown;",
      "    syncProfile(): Promise<void>;",
      "    selectSkills(names: string[]): void;",
      "    inspection: Inspection;",
      "    profileStates: number;",
      "}",
    ].join("\n");
    expect(findForbiddenNames(text).map((f) => [f.name, f.line])).toEqual([
      ["Inspector", 1],
      ["profileState", 4],
      ["syncProfile", 5],
      ["selectSkills", 6],
    ]);
  });
});
