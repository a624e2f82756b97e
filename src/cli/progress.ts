/**
 * Where a live run's text goes: stdout, with a spinner naming the current activity on stderr
 * while nothing is being written — only when both streams are a terminal, so a pipe receives
 * exactly what it would without one. The spinner never shares a line with streamed text.
 */
import yoctoSpinner, { type Spinner } from "yocto-spinner";

export interface LiveOutput {
  /** Write result text to stdout. */
  write(text: string): void;
  /** What the run is doing now, shown beside the spinner; `undefined` hides the spinner. */
  activity(text: string | undefined): void;
  /** Hide the spinner for a while (a prompt is drawn); `activity` shows it again. */
  pause(): void;
  close(): void;
}

export function plainOutput(write: (text: string) => void = (text) => process.stdout.write(text)): LiveOutput {
  return { write, activity: () => undefined, pause: () => undefined, close: () => undefined };
}

export function spinnerOutput(): LiveOutput {
  // The command handles SIGINT itself (cancel first, exit on the second).
  const spinner: Spinner = yoctoSpinner({ stream: process.stderr, handleSignals: false });
  let atLineStart = true;
  let current: string | undefined;
  const show = () => {
    if (current !== undefined && atLineStart && !spinner.isSpinning) spinner.start(current);
  };
  return {
    write(text) {
      if (text === "") return;
      if (spinner.isSpinning) spinner.stop();
      process.stdout.write(text);
      atLineStart = text.endsWith("\n");
      show();
    },
    activity(text) {
      current = text;
      if (text === undefined) {
        if (spinner.isSpinning) spinner.stop();
        return;
      }
      if (spinner.isSpinning) spinner.text = text;
      else show();
    },
    pause() {
      if (spinner.isSpinning) spinner.stop();
    },
    close() {
      current = undefined;
      if (spinner.isSpinning) spinner.stop();
    },
  };
}
