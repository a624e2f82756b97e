/**
 * `run`: one prompt, its events streamed for a person (or as JSON lines), its approvals answered
 * as they come — by a policy, a prompt on a terminal, or denied when no one can be asked.
 */
import { createAgent } from "../agent/agent.js";
import type { CallOptions } from "../agent/options.js";
import type { RunStream } from "../agent/run-stream.js";
import { AdaptorError } from "../errors/index.js";
import type { AgentEvent, ApprovalResponse } from "../events/types.js";
import { decideApproval, promptAbandoned, type ApprovalPolicy } from "./approvals.js";
import { EXIT, exitCodeFor, printError } from "./exit.js";
import { EventPrinter } from "./printer.js";
import { plainOutput, spinnerOutput } from "./progress.js";
import { driverFor, settingsFrom } from "./registry.js";
import { interruptSignal, type Interrupt } from "./signals.js";
import { colorsFor, progressAllowed } from "./terminal.js";

export interface RunFlags {
  driver?: string;
  model?: string;
  effort?: string;
  json?: boolean;
  executable?: string;
  workspace?: string;
  approve?: boolean;
  deny?: boolean;
}

export async function runCommand(prompt: string, flags: RunFlags): Promise<number> {
  const interrupt = interruptSignal();
  const policy: ApprovalPolicy = flags.approve ? "approve" : flags.deny ? "deny" : "ask";
  const agent = createAgent(driverFor(flags.driver, settingsFrom(flags)), flags.workspace ? { workspace: flags.workspace } : {});
  const out = !flags.json && progressAllowed() ? spinnerOutput() : plainOutput();
  const printer = new EventPrinter(out, colorsFor(process.stdout));
  try {
    // Approvals are answered below as they stream, so a prompt can show the offered options.
    const options: CallOptions = { signal: interrupt.signal, onApproval: "stream" };
    if (flags.model) options.model = flags.model;
    if (flags.effort) options.effort = flags.effort;
    const stream = agent.stream(prompt, options);
    for await (const event of stream) {
      if (flags.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      // The failure itself is printed to stderr once the result settles.
      else printer.print(event, { skipTerminalFailures: true });
      if (event.type !== "approval.requested") continue;
      out.pause();
      printer.endLine();
      await answerApproval(stream, event, policy, interrupt);
    }
    out.close();
    return await stream.result.then(
      () => EXIT.ok,
      (error: unknown) => {
        printError(error);
        return exitCodeFor(error);
      },
    );
  } finally {
    out.close();
    interrupt.dispose();
    await agent.close();
  }
}

/** Answers one approval of the run under `policy`; a request settled meanwhile (a cancel) is left as it is. */
async function answerApproval(
  stream: RunStream,
  request: Extract<AgentEvent, { type: "approval.requested" }>,
  policy: ApprovalPolicy,
  interrupt: Interrupt,
): Promise<void> {
  let answer: ApprovalResponse;
  try {
    answer = await decideApproval(request, policy, interrupt.signal);
  } catch (error) {
    if (!promptAbandoned(error)) throw error;
    // Ctrl-C inside the prompt (a key in raw mode, not a signal) cancels like Ctrl-C elsewhere.
    interrupt.abort();
    return;
  }
  try {
    stream.respond(request.requestId, answer);
  } catch (error) {
    // The stream shows how it was settled instead.
    if (!(AdaptorError.is(error) && (error.code === "request_not_pending" || error.code === "approval_timeout"))) throw error;
  }
}
