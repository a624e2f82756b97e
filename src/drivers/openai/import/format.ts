/** What a transcript format's reader is given, and what it does with each entry. */
import type { TranscriptBuilder } from "./builder.js";
import type { ImportedMedia } from "./media.js";

export interface ReadContext {
  builder: TranscriptBuilder;
  media: ImportedMedia;
}

/** One recorded-session format: how its entries become the driver's conversation. */
export interface TranscriptFormat {
  /** The recording agent's name, for notices (`Codex`, `Claude Code`). */
  readonly label: string;
  /**
   * Feeds the conversation's entries to the builder in order. Returns how many entries it met
   * whose shape it could not read (skipped and counted); entries of kinds that carry no
   * conversation (metadata, usage, UI events) are passed over without counting.
   */
  read(entries: readonly Record<string, unknown>[], context: ReadContext): number;
}
