/**
 * The CLI process a stream-json run plays its turn in: the thread's warm writer when it is still
 * in the session, else the prepared unbound standby for a new session, else a new process started
 * for the run (resuming or forking the thread's session, checked to belong to the workspace).
 */
import type { RunRequest } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import type { Launcher } from "./launcher.js";
import type { StreamJsonProcess } from "./process.js";
import { sessionSlugs } from "./sessions.js";
import { StreamJsonStandby, StreamJsonWriter } from "./standby.js";

const MAX_CHECKED_SLUG = 180;

export interface AcquiredProcess {
  proc: StreamJsonProcess;
  /** Whether the process was claimed (already initialized) rather than started for this run. */
  claimed: boolean;
}

export async function acquireProcess(launcher: Launcher, owner: object, request: RunRequest): Promise<AcquiredProcess> {
  const resume = request.thread?.providerSessionId;
  const fork = resume !== undefined && request.thread?.fork === true;
  // The thread's warm writer is still in the session: the next user line continues it.
  // A structured-output run needs its schema on the command line: only a process started for it serves it.
  const reusable = request.outputSchema === undefined;
  const writer = reusable && !fork && request.standby instanceof StreamJsonWriter && request.standby.session === resume ? request.standby : undefined;
  const warm = writer !== undefined && servesHostTools(writer, request) ? writer.claim(owner) : undefined;
  if (resume !== undefined && !warm) await checkWorkspace(launcher, resume, request.workspace);

  const unbound = reusable && resume === undefined && request.standby instanceof StreamJsonStandby ? request.standby : undefined;
  const standby = warm ?? (unbound !== undefined && servesHostTools(unbound, request) ? unbound.claim(owner) : undefined);
  if (standby) {
    // The process registered its endpoint at start; from now on its calls are this run's. The CLI
    // re-lists the tools on the announcement of the run's services: the prompt waits for that.
    if (request.hostTools !== undefined && standby.hostTools !== undefined) await request.hostTools.bind(standby.hostTools);
    return { proc: standby, claimed: true };
  }
  const hostTools = await request.hostTools?.open();
  const proc = await launcher.start(request.workspace, {
    ...(request.model !== undefined ? { model: request.model } : {}),
    ...(request.effort !== undefined ? { effort: request.effort } : {}),
    policy: request.policy,
    ...(resume !== undefined ? { resume, fork } : {}),
    mcp: request.resources.mcp,
    skills: request.resources.skills,
    ...(hostTools !== undefined ? { hostTools } : {}),
    ...(request.outputSchema !== undefined ? { outputSchema: request.outputSchema } : {}),
    ...(request.traceContext !== undefined ? { traceContext: request.traceContext } : {}),
  });
  return { proc, claimed: false };
}

/**
 * A kept process serves a run with host tools only when it registered an endpoint at start: the
 * CLI connects to its MCP servers once, so one cannot be added to a running process.
 */
function servesHostTools(standby: StreamJsonStandby | StreamJsonWriter, request: RunRequest): boolean {
  return request.hostTools === undefined || standby.hostTools !== undefined;
}

/**
 * A session is resumed from the workspace it was recorded in, or not at all. One the CLI has no
 * transcript of, or only an empty one, is missing (`provider_session_not_found`, before anything
 * starts): Claude Code would exit before answering, CodeBuddy would never answer or, from an empty
 * transcript, start the conversation over.
 */
async function checkWorkspace(launcher: Launcher, sessionId: string, workspace: string): Promise<void> {
  const configDir = launcher.configDir();
  if (configDir === undefined) return;
  const slugs = await sessionSlugs(configDir, sessionId);
  if (slugs.length === 0) {
    throw new ProviderError(`the CLI has no saved conversation ${sessionId} in its config directory`, {
      code: "provider_session_not_found",
      phase: "before_delivery",
    });
  }
  const expected = launcher.dialect.projectSlug(workspace);
  // Very long paths are shortened by the CLIs in ways not modelled here: no check then.
  if (expected.length > MAX_CHECKED_SLUG) return;
  if (!slugs.includes(expected)) {
    throw new ProviderError(`session ${sessionId} was recorded in another workspace; resume it from that workspace`, {
      code: "session_workspace_mismatch",
      phase: "before_delivery",
    });
  }
}
