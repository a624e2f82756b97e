/**
 * Unreadable provider output, reported the same way by every driver: a line that is not valid
 * UTF-8, not valid JSON, over the frame limit, or JSON that is no protocol message becomes a
 * `notice` whose code names that condition. A flood costs one notice per code per interval, with
 * `count` saying how many lines it stands for, instead of one event per line.
 */
import type { SharedNoticeCode } from "../events/notice-codes.js";
import type { DriverEvent } from "../events/types.js";

/** What each malformed-line notice says; its keys are rows of the notice table every driver shares. */
const WHAT = {
  invalid_utf8: "is not valid UTF-8",
  invalid_json: "is not valid JSON",
  frame_too_large: "exceeds the frame size limit",
  malformed_frame: "is JSON but not a protocol message",
} as const satisfies Partial<Record<SharedNoticeCode, string>>;

/** Why a line of provider output could not be used: a shared notice code. */
export type MalformedFrameCode = keyof typeof WHAT;

/** After a malformed line is reported, further ones are counted for this long, then summarised. */
export const MALFORMED_FRAME_INTERVAL_MS = 1000;

/** The notice code for a framing error code (`ProtocolError.code`); anything else is `malformed_frame`. */
export function malformedFrameCode(code: string): MalformedFrameCode {
  return code === "invalid_utf8" || code === "invalid_json" || code === "frame_too_large" ? code : "malformed_frame";
}

type Emit = (event: DriverEvent) => Promise<void> | undefined | void;

/**
 * One run's malformed-frame notices. The first malformed line after a quiet interval is reported
 * at once (`count: 1`); the lines that follow within the interval are counted and reported as one
 * notice per code (`count: n`) by the next malformed line after the interval, or by `flush()`,
 * which the driver calls before its run ends. The counts of all notices add up to the lines seen.
 */
export class MalformedFrameNotices {
  readonly #emit: Emit;
  readonly #source: string;
  readonly #now: () => number;
  readonly #pending = new Map<MalformedFrameCode, number>();
  #windowStart = Number.NEGATIVE_INFINITY;

  /** `source` names the writer in messages, e.g. `"codex app-server"`. */
  constructor(emit: Emit, source: string, now: () => number = Date.now) {
    this.#emit = emit;
    this.#source = source;
    this.#now = now;
  }

  /** One malformed line; `excerpt` must already be redacted. */
  report(code: string, excerpt?: string): Promise<void> {
    const kind = malformedFrameCode(code);
    const at = this.#now();
    if (at - this.#windowStart < MALFORMED_FRAME_INTERVAL_MS) {
      this.#pending.set(kind, (this.#pending.get(kind) ?? 0) + 1);
      return Promise.resolve();
    }
    if (this.#pending.size > 0) {
      // A flood still going on: this line joins the next summary instead of a notice of its own.
      this.#windowStart = at;
      const summary = this.flush();
      this.#pending.set(kind, 1);
      return summary;
    }
    this.#windowStart = at;
    const suffix = excerpt ? `: ${excerpt}` : "";
    return this.#send(kind, 1, `${this.#source} wrote a line that ${WHAT[kind]}${suffix}`);
  }

  /** Reports the lines counted since the last notice. */
  async flush(): Promise<void> {
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const [kind, count] of pending) {
      await this.#send(kind, count, `${this.#source} wrote ${count} more line${count === 1 ? "" : "s"} that ${count === 1 ? WHAT[kind] : WHAT[kind].replace(/^is /, "are ").replace(/^exceeds /, "exceed ")}`);
    }
  }

  async #send(code: MalformedFrameCode, count: number, message: string): Promise<void> {
    await this.#emit({ type: "notice", level: "warning", code, message, count });
  }
}
