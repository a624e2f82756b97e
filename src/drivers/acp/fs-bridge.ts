/**
 * Which paths the client-side file system bridge (`fs/read_text_file`, `fs/write_text_file`)
 * serves: anything inside the workspace, and for reads also exactly the run's own input copies
 * delivered as workspace references (they live in a run-owned directory outside the workspace,
 * so nothing is ever left in the user's workspace).
 */
import { isAbsolute, relative, resolve as resolvePath } from "node:path";
import type { ResolvedInput } from "../../driver/types.js";

const invalidParams = (message: string): Error => Object.assign(new Error(message), { code: -32602 });

/** A file path from the agent, accepted only inside the workspace. */
export function insideWorkspace(workspace: string, path: unknown): string {
  if (typeof path !== "string" || !isAbsolute(path)) throw invalidParams("the path must be absolute");
  const full = resolvePath(path);
  const rel = relative(resolvePath(workspace), full);
  if (rel.startsWith("..") || isAbsolute(rel)) throw invalidParams("the path is outside the workspace");
  return full;
}

/** A path the agent may read: inside the workspace, or one of the run's referenced input copies. */
export function readablePath(workspace: string, inputs: readonly ResolvedInput[], path: unknown): string {
  if (typeof path === "string" && isAbsolute(path)) {
    const full = resolvePath(path);
    if (inputs.some((input) => input.deliveryMode === "workspace_reference" && resolvePath(input.localPath) === full)) return full;
  }
  return insideWorkspace(workspace, path);
}
