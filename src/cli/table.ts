/**
 * Aligned tables for the terminal (cli-table3, borderless): columns padded to the widest cell,
 * the header bold where colours are allowed. Cells are single lines.
 */
import Table from "cli-table3";
import type { Colors } from "./terminal.js";

const NO_BORDER = {
  top: "", "top-mid": "", "top-left": "", "top-right": "",
  bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "",
  left: "", "left-mid": "", mid: "", "mid-mid": "",
  right: "", "right-mid": "", middle: "  ",
};

/** `rows` under `head`; trailing spaces trimmed. */
export function renderTable(head: readonly string[], rows: readonly (readonly string[])[], colors: Colors): string {
  const table = new Table({
    head: head.map((cell) => colors.bold(cell)),
    chars: NO_BORDER,
    // Colours are ours (cli-table3 would colour the header even when piped).
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0, compact: true },
    wordWrap: false,
  });
  for (const row of rows) table.push(row.map((cell) => cell.replace(/\s+/g, " ")));
  return table
    .toString()
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n");
}

/** A two-column key/value listing (`show` commands). */
export function renderFields(fields: readonly (readonly [string, string])[], colors: Colors): string {
  const width = Math.max(0, ...fields.map(([key]) => key.length));
  return fields.map(([key, value]) => `${colors.bold(key.padEnd(width))}  ${value}`).join("\n");
}
