#!/usr/bin/env node
/**
 * The public API report: runs API Extractor over the built declaration entry points and keeps
 * one reviewed report per entry point in etc/.
 *
 *   node scripts/api-report.mjs --update   regenerate etc/*.api.md (after `npm run build`)
 *   node scripts/api-report.mjs --check    fail when the built API differs from etc/, or when a
 *                                          report contains a name the design forbids
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { API_CHANGED_MESSAGE, REPORTS, compareReportFolders, findForbiddenNames } from "./api-report-lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const mode = process.argv.includes("--update") ? "update" : process.argv.includes("--check") ? "check" : undefined;
if (!mode) {
  console.error("usage: node scripts/api-report.mjs --update | --check");
  process.exit(2);
}

// Messages api-extractor prints about the report file itself; this script says it better.
const REPORT_FILE_MESSAGES = new Set([
  "console-api-report-not-copied",
  "console-api-report-copied",
  "console-api-report-created",
  "console-api-report-unchanged",
]);

let failed = false;
let changed = false;

for (const entry of REPORTS) {
  const config = ExtractorConfig.loadFileAndPrepare(join(root, entry.config));
  const entryFile = relative(root, config.mainEntryPointFilePath);
  if (!existsSync(config.mainEntryPointFilePath)) {
    console.error(`api-report: ${entryFile} is missing: run npm run build first`);
    process.exit(2);
  }
  const generatedDir = config.reportTempFolder;
  const committedDir = config.reportFolder;
  const generated = join(generatedDir, entry.report);
  // A report left from an earlier run must not be judged if this one fails before writing.
  rmSync(generated, { force: true });
  const result = Extractor.invoke(config, {
    localBuild: mode === "update",
    messageCallback(message) {
      message.handled = true;
      if (REPORT_FILE_MESSAGES.has(message.messageId)) return;
      if (message.logLevel !== "warning" && message.logLevel !== "error") return;
      console.error(`  ${message.logLevel}: ${message.formatMessageWithLocation(root + "/")}`);
    },
  });

  const [comparison] = compareReportFolders(committedDir, generatedDir, [entry.report]);
  const reportPath = relative(root, join(committedDir, entry.report));
  const entryChanged = result.apiReportChanged || (mode === "check" && comparison !== undefined && comparison.changed);

  if (result.errorCount > 0) {
    failed = true;
    console.error(`✗ ${entry.entry}: API Extractor reported ${result.errorCount} error(s)`);
  }
  if (mode === "update") {
    console.log(`${entryChanged ? "↻" : "✓"} ${entry.entry}: ${reportPath} ${entryChanged ? "updated" : "unchanged"}`);
  } else if (entryChanged) {
    changed = true;
    console.error(`✗ ${entry.entry}: ${reportPath} differs from the built declarations (${entryFile})`);
    for (const line of comparison?.diff ?? []) console.error(`    ${line}`);
  } else if (result.errorCount === 0) {
    console.log(`✓ ${entry.entry}: ${reportPath} up to date`);
  }

  // Judge what was generated: in --check mode the committed file may be stale.
  if (existsSync(generated)) {
    const findings = findForbiddenNames(readFileSync(generated, "utf8"));
    for (const finding of findings) {
      failed = true;
      console.error(`✗ ${entry.entry}: forbidden in the public API (DESIGN §3): ${finding.name} — line ${finding.line}: ${finding.text}`);
    }
  }
}

if (changed) console.error(`\n${API_CHANGED_MESSAGE}`);
if (failed || changed) process.exit(1);
