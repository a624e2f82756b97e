/**
 * `prepare()` on a stream-json CLI: start and initialize one process and keep it as an unbound
 * standby only when provably no conversation exists yet; otherwise the inspection is all it gives.
 */
import type { InspectResponse, PrepareRequest, PrepareResponse } from "../../driver/types.js";
import { mcpProblems } from "./argv.js";
import { inspectTransient, observeProcess, startFailure } from "./inspect.js";
import type { Launcher } from "./launcher.js";
import type { StreamJsonProcess } from "./process.js";
import { listSessionFiles, newFiles } from "./sessions.js";
import { StreamJsonStandby } from "./standby.js";

export async function prepareStandby(launcher: Launcher, owner: object, request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
  signal.throwIfAborted();
  // A process whose command line could not carry the MCP servers is never kept.
  if (mcpProblems(request.resources.mcp).length > 0) return { inspection: await inspectTransient(launcher, request, signal), process: "transient" };
  const configDir = launcher.configDir();
  const before = configDir === undefined ? undefined : await listSessionFiles(configDir);
  let proc: StreamJsonProcess;
  try {
    proc = await launcher.start(request.workspace, {
      ...(request.model !== undefined ? { model: request.model } : {}),
      ...(request.effort !== undefined ? { effort: request.effort } : {}),
      policy: request.policy,
      mcp: request.resources.mcp,
    });
  } catch (error) {
    return { inspection: startFailure(error), process: "transient" };
  }
  let keep = false;
  try {
    const inspection: InspectResponse = await observeProcess(launcher, proc, signal, request.resources.instructions, true);
    // Ready only when provable: the CLI answered initialize, is still running, and no
    // session transcript appeared since it started.
    const answered = inspection.environment.status === "observed";
    const created = configDir === undefined || before === undefined ? undefined : newFiles(before, await listSessionFiles(configDir));
    signal.throwIfAborted();
    if (answered && proc.alive && created !== undefined && created.length === 0) {
      keep = true;
      return { inspection, process: "ready", standby: new StreamJsonStandby(proc, owner) };
    }
    return { inspection, process: "transient" };
  } finally {
    if (!keep) await launcher.retire(proc, 1_000);
  }
}
