#!/usr/bin/env node
/**
 * docs/agent-event.schema.json: the JSON Schema of the wire events (the consumer schema of
 * `agent-adaptor/events`, `agentEventJsonSchema()`), for validators that do not run JavaScript.
 * Generated from src/events/schema.ts; test/events/schema-types.test.ts fails when it is stale.
 *
 *   node scripts/gen-events-schema.mjs --update   rewrite the file
 *   node scripts/gen-events-schema.mjs --check    fail when it differs from the schemas
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "docs/agent-event.schema.json");
const mode = process.argv.includes("--update") ? "update" : process.argv.includes("--check") ? "check" : undefined;
if (!mode) {
  console.error("usage: node scripts/gen-events-schema.mjs --update | --check");
  process.exit(2);
}

// The schema module imports its siblings: compile that graph alone, inside the checkout so zod resolves.
mkdirSync(join(root, ".tmp"), { recursive: true });
const out = mkdtempSync(join(root, ".tmp/events-schema-"));
/** Exits with 1 after removing the build (process.exit skips finally). */
const fail = () => {
  rmSync(out, { recursive: true, force: true });
  process.exit(1);
};
try {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const args = ["--outDir", out, "--rootDir", join(root, "src"), "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--strict", "--skipLibCheck", join(root, "src/events/schema.ts")];
  const compiled = spawnSync(process.execPath, [tsc, ...args], { cwd: root, encoding: "utf8" });
  if (compiled.status !== 0) {
    console.error(`${compiled.stdout}${compiled.stderr}`.trim());
    fail();
  }
  writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
  const { agentEventJsonSchema } = await import(pathToFileURL(join(out, "events/schema.js")).href);
  const text = `${JSON.stringify(agentEventJsonSchema(), null, 2)}\n`;
  if (mode === "update") {
    writeFileSync(target, text);
    console.log("docs/agent-event.schema.json written");
  } else if (readFileSync(target, "utf8") !== text) {
    console.error("docs/agent-event.schema.json is stale: run node scripts/gen-events-schema.mjs --update");
    fail();
  } else {
    console.log("docs/agent-event.schema.json is current");
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
