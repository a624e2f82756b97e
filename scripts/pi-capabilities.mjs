#!/usr/bin/env node
/**
 * Renders the capability table of docs/drivers/pi.md from what the Pi real-CLI lane proved
 * (test/drivers/pi/lane-results.json, written by the lane when PI_LANE_RECORD=1). A capability the
 * recorded run did not prove is listed as not proven, never assumed.
 *
 *   PI_LANE_RECORD=1 npx vitest run --no-file-parallelism test/drivers/pi/real-cli.test.ts test/drivers/pi/resources-real-cli.test.ts
 *   node scripts/pi-capabilities.mjs [--write | --check]
 *
 * Without a flag it prints the block; `--write` replaces the block between the markers in the
 * doc; `--check` exits 1 when the doc's block is not what the recorded results render.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const resultsPath = join(root, "test/drivers/pi/lane-results.json");
const docPath = join(root, "docs/drivers/pi.md");
const START = "<!-- pi-capabilities:start -->";
const END = "<!-- pi-capabilities:end -->";

/** The capabilities the lane is expected to prove, in table order (as in test/drivers/pi/lane-record.ts). */
const EXPECTED = [
  "inspect",
  "prepare",
  "streaming",
  "usage",
  "tools",
  "cancel",
  "steer",
  "follow-up",
  "resume",
  "resume in a second OS process",
  "fork",
  "inputs",
  "model check",
  "instructions",
  "skills",
  "host tools",
  "MCP servers",
];

const cell = (text) => String(text).replace(/\|/g, "\\|").replace(/\n/g, " ");
const line = (cells) => `| ${cells.map(cell).join(" | ")} |`;

export function render(results) {
  const byCapability = new Map(results.rows.map((row) => [row.capability, row]));
  const unknown = results.rows.filter((row) => !EXPECTED.includes(row.capability)).map((row) => row.capability);
  if (unknown.length > 0) throw new Error(`pi-capabilities: rows for capabilities the table does not know: ${unknown.join(", ")}`);
  const rows = EXPECTED.map((capability) => {
    const row = byCapability.get(capability);
    return row === undefined ? [capability, "**not proven** in the recorded lane run", "—"] : [capability, row.support, row.evidence];
  });
  const table = [line(["capability", "support", "what the lane observed"]), line(["---", "---", "---"]), ...rows.map(line)].join("\n");
  const stamp = `Recorded by the real-CLI lane (test/drivers/pi/real-cli.test.ts, resources-real-cli.test.ts) on ${results.date}: Pi ${results.pi}, Node ${results.node}, ${results.platform}, against the scripted model server's Chat Completions dialect.`;
  return `${START}\n${table}\n\n${stamp}\n${END}`;
}

function docBlock(doc) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`pi-capabilities: ${docPath} has no ${START} … ${END} block`);
  return { start, end: end + END.length, text: doc.slice(start, end + END.length) };
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const block = render(JSON.parse(readFileSync(resultsPath, "utf8")));
  const doc = readFileSync(docPath, "utf8");
  const current = docBlock(doc);
  if (process.argv.includes("--check")) {
    if (current.text !== block) {
      console.error("pi-capabilities: docs/drivers/pi.md is stale; run node scripts/pi-capabilities.mjs --write");
      process.exit(1);
    }
    console.log("pi-capabilities: docs/drivers/pi.md matches the recorded lane results");
  } else if (process.argv.includes("--write")) {
    writeFileSync(docPath, `${doc.slice(0, current.start)}${block}${doc.slice(current.end)}`);
    console.log("pi-capabilities: wrote the capability table into docs/drivers/pi.md");
  } else {
    process.stdout.write(`${block}\n`);
  }
}
