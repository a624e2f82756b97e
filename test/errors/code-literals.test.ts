/**
 * Every code thrown or emitted anywhere in src/ is a row of the code tables: a check over the
 * whole source with the TypeScript compiler, so a cast or a wide `string` cannot smuggle an
 * unknown code past the types. The second case proves the check fails on unknown codes, in each
 * kind of code slot, using a file the compiler host serves from memory.
 */
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors/codes.js";
import { NOTICE_CODES } from "../../src/events/notice-codes.js";
import { scanCodes, type CodeTables } from "./code-scan.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const src = join(root, "src");
const tables: CodeTables = { errors: new Set(Object.keys(ERROR_CODES)), notices: new Set(Object.keys(NOTICE_CODES)) };

/** Unknown codes in every kind of slot, each cast past the types, plus one good code. */
const FIXTURE = join(root, "test", "errors", "__scan_fixture__.ts");
const FIXTURE_TEXT = [
  `import { ProviderError, ProtocolError, ConfigError, AdaptorError, type ErrorCode } from "../../src/errors/index.js";`,
  `import type { NoticeCode } from "../../src/events/notice-codes.js";`,
  `import type { DriverEvent, RunFailure } from "../../src/events/types.js";`,
  `declare const wide: string;`,
  `export const a = new ProviderError("m", { code: "bogus_provider_code" as ErrorCode });`,
  `export const b = new ProtocolError("m", "bogus_protocol_code" as never);`,
  `export const c = new ConfigError("m", wide as "option_scope");`,
  `export class Custom extends AdaptorError { constructor() { super("bogus_super_code" as ErrorCode, "m"); } }`,
  `export const d: DriverEvent = { type: "notice", level: "info", code: "bogus_notice_code" as NoticeCode, message: "m" };`,
  `export const e: RunFailure = { code: wide as ErrorCode, message: "m", phase: "after_delivery", retryable: false };`,
  `export const ok = new ProviderError("m", { code: "provider_error" });`,
].join("\n");

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** One program over src/ and the in-memory fixture (type checking is the slow part: do it once). */
function program(): ts.Program {
  const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, shouldCreate) =>
    fileName === FIXTURE ? ts.createSourceFile(fileName, FIXTURE_TEXT, language, true) : getSourceFile(fileName, language, onError, shouldCreate);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === FIXTURE || fileExists(fileName);
  return ts.createProgram({ rootNames: [...sourceFiles(src), FIXTURE], options, host });
}

describe("error and notice codes in the source", () => {
  let checked: ts.Program;
  beforeAll(() => {
    checked = program();
  });

  it("are all rows of ERROR_CODES and NOTICE_CODES", () => {
    const { findings, slots } = scanCodes(checked, `${src}/`, tables);
    expect(findings.map((f) => `${f.file.slice(root.length + 1)}:${f.line} ${f.table} code ${f.code}`)).toEqual([]);
    // Not vacuous: the source throws and emits codes in well over a hundred places.
    expect(slots).toBeGreaterThan(100);
  });

  it("fails on an unknown or unchecked code in each kind of slot", () => {
    const { findings, slots } = scanCodes(checked, FIXTURE, tables);
    expect(slots).toBe(7);
    expect(findings.map((f) => [f.line, f.table, f.code])).toEqual([
      [5, "error", "bogus_provider_code"],
      [6, "error", "bogus_protocol_code"],
      [7, "error", "<not a closed code type: string>"],
      [8, "error", "bogus_super_code"],
      [9, "notice", "bogus_notice_code"],
      [10, "error", "<not a closed code type: string>"],
    ]);
  });
});
