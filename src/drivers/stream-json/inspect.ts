/**
 * Inspection through the zero-prompt `initialize` control request (plus any further read-only
 * control requests the dialect makes). Nothing here sends a user message, so no conversation is
 * created. Failures become observations; only cancellation rejects.
 */
import { EvidenceRecorder } from "../../driver/kit/evidence.js";
import { allUnavailable, unavailable } from "../../driver/observations.js";
import type { InspectRequest, InspectResponse } from "../../driver/types.js";
import type { Evidence } from "../../inspect/types.js";
import { AdaptorError, ExecutableNotFoundError } from "../../errors/index.js";
import type { Launcher } from "./launcher.js";
import type { StreamJsonProcess } from "./process.js";

/** How a process is observed. */
export interface ObserveOptions {
  appendSystemPrompt?: string | undefined;
  /** A user message will follow on this process (a standby). */
  hasPrompt?: boolean;
  /** Why the process was started without the agent's MCP servers, when it has some. */
  mcpWithheld?: string | undefined;
}

/** Inspects through an already started process (which the caller keeps or stops). */
export async function observeProcess(launcher: Launcher, proc: StreamJsonProcess, signal: AbortSignal, options: ObserveOptions = {}): Promise<InspectResponse> {
  const { dialect } = launcher;
  const { appendSystemPrompt, hasPrompt = false } = options;
  const clock = new EvidenceRecorder(dialect.transport, dialect.executableVersion?.(launcher.executable));
  const init = await clock.measure("initialize", () =>
    launcher.initialize(proc, { signal, hasPrompt, ...(appendSystemPrompt === undefined ? {} : { appendSystemPrompt }) }),
  );
  signal.throwIfAborted();
  let response: InspectResponse;
  if ("error" in init) {
    const { code, message } = failureReason(init.error);
    response = allUnavailable(code, launcher.redactor.redactText(message));
    for (const panel of Object.values(response)) (panel as { evidence: unknown[] }).evidence = [init.evidence];
  } else {
    response = await dialect.inspect(init.value, init.evidence, {
      process: proc,
      clock,
      executable: launcher.executable,
      signal,
      knownSecrets: launcher.secrets,
      ...(options.mcpWithheld !== undefined ? { mcpWithheld: options.mcpWithheld } : {}),
    });
    signal.throwIfAborted();
  }
  for (const secret of response.secrets ?? []) launcher.addSecret(secret);
  response.secrets = launcher.secrets;
  return response;
}

/**
 * Starts a process, inspects, and always reaps it: inspection never keeps a process. It loads the
 * agent's skills (files only, so the skills panel shows what the CLI lists) but none of its MCP
 * servers: inspection starts no server.
 */
export async function inspectTransient(launcher: Launcher, request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
  signal.throwIfAborted();
  let proc: StreamJsonProcess;
  try {
    proc = await launcher.start(request.workspace, { policy: {}, skills: request.resources.skills, inspection: true });
  } catch (error) {
    return startFailure(error);
  }
  try {
    return await observeProcess(launcher, proc, signal, {
      appendSystemPrompt: request.resources.instructions,
      mcpWithheld: withheldMcp(launcher, request),
    });
  } finally {
    // Retired in the background: the answer is complete, and the driver still tracks the
    // process until it is reaped (its close() waits for it).
    void launcher.retire(proc, 1_000);
  }
}

/** Why an inspection reports no MCP status: it starts none of the servers the agent's runs would have. */
function withheldMcp(launcher: Launcher, request: InspectRequest): string | undefined {
  const agentServers = request.resources.mcp.length > 0 || request.resources.tools.length > 0;
  if (!agentServers && launcher.config.userMcpServers !== true) return undefined;
  return "inspect() starts no MCP server; prepare() and runs start the agent's servers";
}

/** Every panel unavailable because the CLI could not be started. */
export function startFailure(error: unknown): InspectResponse {
  if (error instanceof ExecutableNotFoundError) return allUnavailable(error.code, error.summary);
  if (AdaptorError.is(error) && (error.code === "executable_not_found" || error.code === "config_invalid")) {
    return allUnavailable(error.code, error.message);
  }
  throw error;
}

function failureReason(error: unknown): { code: string; message: string } {
  if (AdaptorError.is(error)) {
    if (error.code === "timeout") return { code: "timeout", message: error.message };
    if (error.code === "provider_exited") return { code: "provider_error", message: error.message };
    return { code: "provider_error", message: error.message };
  }
  return { code: "provider_error", message: error instanceof Error ? error.message : "initialize failed" };
}

/** An `unavailable` observation for a panel a follow-up call could not answer. */
export function callFailed<T>(error: unknown, evidence: Evidence) {
  const { code, message } = failureReason(error);
  return unavailable<T>(code, message, [evidence]);
}
