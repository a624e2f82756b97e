/** Ctrl-C and SIGTERM handling shared by the long-running commands. */
import { EXIT } from "./exit.js";

export interface Interrupt {
  readonly signal: AbortSignal;
  /** Abort as the first signal would (a prompt's Ctrl-C, which the terminal delivers as a key). */
  abort(): void;
  dispose(): void;
}

/** The first SIGINT/SIGTERM aborts `signal`; the second one exits at once with 130. */
export function interruptSignal(): Interrupt {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.cancelled);
    controller.abort(new Error("interrupted"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    abort: () => controller.abort(new Error("interrupted")),
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
