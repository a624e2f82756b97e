/**
 * The default Claude Code executable: the native binary the Agent SDK ships in its per-platform
 * optional package, when installed next to this package; otherwise `claude` on PATH.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const CLAUDE_INSTALL = "npm install -g @anthropic-ai/claude-code";
export const CLAUDE_LOGIN = "run `claude` and sign in with /login, or set ANTHROPIC_API_KEY";

export function defaultClaudeExecutable(): string {
  const arch = process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
  if (arch !== undefined) {
    const base = `@anthropic-ai/claude-agent-sdk-${process.platform}-${arch}`;
    const candidates = isMusl() ? [`${base}-musl`, base] : [base, `${base}-musl`];
    const binary = process.platform === "win32" ? "claude.exe" : "claude";
    for (const pkg of candidates) {
      try {
        return require.resolve(`${pkg}/${binary}`);
      } catch {
        // not installed
      }
    }
  }
  return "claude";
}

function isMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}
