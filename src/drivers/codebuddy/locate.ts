/**
 * The default CodeBuddy Code executable: the headless bundle shipped inside `@tencent-ai/agent-sdk`
 * (run with this Node), when installed next to this package; otherwise `codebuddy` on PATH.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const CLI_PACKAGE = "@tencent-ai/codebuddy-code";

export const CODEBUDDY_INSTALL = `npm install -g ${CLI_PACKAGE}`;
export const CODEBUDDY_LOGIN = "run `codebuddy` and sign in with /login, or set CODEBUDDY_API_KEY";

export function defaultCodebuddyExecutable(): string {
  try {
    // The package exports only its entry; the bundle sits beside it.
    const root = dirname(dirname(require.resolve("@tencent-ai/agent-sdk")));
    const bundle = join(root, "cli", "dist", "codebuddy-headless.js");
    if (existsSync(bundle)) return bundle;
  } catch {
    // not installed
  }
  return "codebuddy";
}

/** The version in the CLI package's manifest next to `executable` (initialize does not report one). */
export function codebuddyVersion(executable: string): string | undefined {
  let dir = dirname(executable);
  for (let i = 0; i < 4; i++) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown; version?: unknown };
        if (parsed.name === CLI_PACKAGE && typeof parsed.version === "string") return parsed.version;
      } catch {
        return undefined;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
