/** Runs the built CLI as a child without blocking this process (an in-process server must keep answering). */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI; AGENT_ADAPTOR_TEST_CLI runs these tests against another build of it. */
export const bin = process.env.AGENT_ADAPTOR_TEST_CLI ?? fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `env` adds variables (`undefined` removes one); AGENT_ADAPTOR_TOKEN is never inherited. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliOutcome> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  delete childEnv.AGENT_ADAPTOR_TOKEN;
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[key];
    else childEnv[key] = value;
  }
  const child = spawn(process.execPath, [bin, ...args], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
