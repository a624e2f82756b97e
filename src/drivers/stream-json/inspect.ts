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

/** Inspects through an already started process (which the caller keeps or stops). */
export async function observeProcess(
  launcher: Launcher,
  proc: StreamJsonProcess,
  signal: AbortSignal,
  appendSystemPrompt: string | undefined,
  hasPrompt = false,
): Promise<InspectResponse> {
  const { dialect } = launcher;
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
    });
    signal.throwIfAborted();
  }
  for (const secret of response.secrets ?? []) launcher.addSecret(secret);
  response.secrets = launcher.secrets;
  return response;
}

/** Starts a process, inspects, and always reaps it: inspection never keeps a process. */
export async function inspectTransient(launcher: Launcher, request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
  signal.throwIfAborted();
  let proc: StreamJsonProcess;
  try {
    proc = await launcher.start(request.workspace, { policy: {} });
  } catch (error) {
    return startFailure(error);
  }
  try {
    return await observeProcess(launcher, proc, signal, request.resources.instructions);
  } finally {
    // Retired in the background: the answer is complete, and the driver still tracks the
    // process until it is reaped (its close() waits for it).
    void launcher.retire(proc, 1_000);
  }
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
