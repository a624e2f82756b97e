/**
 * The client-side file system bridge (`fs/read_text_file`, `fs/write_text_file`) and the paths it
 * serves: anything inside the workspace, and for reads also exactly the run's own input copies
 * delivered as workspace references (they live in a run-owned directory outside the workspace,
 * so nothing is ever left in the user's workspace).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve as resolvePath } from "node:path";
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest, WriteTextFileResponse } from "@agentclientprotocol/sdk/unstable";
import type { ResolvedInput } from "../../driver/types.js";
import { num, readFrame, str } from "../../driver/lens.js";

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

/** Answers `fs/read_text_file`: the whole file, or `limit` lines from the 1-based `line`. */
export async function readTextFile(workspace: string, inputs: readonly ResolvedInput[], params: unknown): Promise<ReadTextFileResponse> {
  const request = readFrame<ReadTextFileRequest>(params) ?? {};
  const text = await readFile(readablePath(workspace, inputs, request.path), "utf8");
  const requestedLine = num(request.line);
  const line = requestedLine === undefined ? undefined : Math.max(1, requestedLine);
  const limit = num(request.limit);
  if (line === undefined && limit === undefined) return { content: text };
  const lines = text.split("\n");
  const start = (line ?? 1) - 1;
  return { content: lines.slice(start, limit === undefined ? undefined : start + limit).join("\n") };
}

/** Answers `fs/write_text_file` inside the workspace, creating missing parent directories. */
export async function writeTextFile(workspace: string, params: unknown): Promise<WriteTextFileResponse> {
  const request = readFrame<WriteTextFileRequest>(params) ?? {};
  const file = insideWorkspace(workspace, request.path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, str(request.content) ?? "", "utf8");
  return {};
}
