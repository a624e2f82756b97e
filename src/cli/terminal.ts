/**
 * What the terminal allows: colours only when the stream is a TTY and `NO_COLOR` is unset
 * (picocolors' own default also turns colours on under CI even when piped, so it is not used);
 * prompts and the spinner only when a person is there to see them.
 */
import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

interface Stream {
  isTTY?: boolean;
}

/** https://no-color.org: present and not empty disables colour. */
export function colorsFor(stream: Stream, env: NodeJS.ProcessEnv = process.env): Colors {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return pc.createColors(stream.isTTY === true && !noColor && env.TERM !== "dumb");
}

/** A person can answer a prompt: keys come from a TTY and the prompt is drawn on one. */
export function interactive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Progress may be drawn: both streams reach the terminal, so nothing extra lands in a pipe or a
 * log. Not under CI, where the spinner would print a line per update instead of redrawing one.
 */
export function progressAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stdout.isTTY === true && process.stderr.isTTY === true && env.TERM !== "dumb" && !("CI" in env);
}
