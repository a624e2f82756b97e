/**
 * `prepare()` on a stream-json CLI: start and initialize one process — with the agent's MCP
 * servers, skills and a host-tools endpoint of its own, as a run's process would have them — and
 * keep it as an unbound standby only when provably no conversation exists yet and the CLI can
 * call its model; otherwise the inspection is all it gives.
 */
import type { InspectResponse, PrepareRequest, PrepareResponse } from "../../driver/types.js";
import { observeProcess, startFailure } from "./inspect.js";
import type { Launcher } from "./launcher.js";
import type { StreamJsonProcess } from "./process.js";
import { listSessionFiles, newFiles } from "./sessions.js";
import { StreamJsonStandby } from "./standby.js";

export async function prepareStandby(launcher: Launcher, owner: object, request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
  signal.throwIfAborted();
  const configDir = launcher.configDir();
  const before = configDir === undefined ? undefined : await listSessionFiles(configDir);
  let proc: StreamJsonProcess;
  try {
    // Unbound until a run claims the standby and binds it (see acquire.ts).
    const hostTools = await request.hostTools?.open();
    proc = await launcher.start(request.workspace, {
      ...(request.model !== undefined ? { model: request.model } : {}),
      ...(request.effort !== undefined ? { effort: request.effort } : {}),
      policy: request.policy,
      mcp: request.resources.mcp,
      skills: request.resources.skills,
      ...(hostTools !== undefined ? { hostTools } : {}),
    });
  } catch (error) {
    return { inspection: startFailure(error), process: "transient" };
  }
  let keep = false;
  try {
    const inspection: InspectResponse = await observeProcess(launcher, proc, signal, { appendSystemPrompt: request.resources.instructions, hasPrompt: true });
    // Ready only when provable: the CLI answered initialize, is still running, and no
    // session transcript appeared since it started. A CLI without a login is not kept: its run
    // starts a process of its own, which refuses before delivery.
    const answered = inspection.environment.status === "observed" && inspection.auth.reason?.code !== "auth_required";
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
