/**
 * Source of the fake provider child process (run with `node --input-type=module -e`). It reads
 * one script line from stdin and writes events and control lines as NDJSON to stdout, honouring
 * pipe backpressure, so a slow host really pauses a real process.
 */
export const FAKE_CHILD_SOURCE = String.raw`
import { createInterface } from "node:readline";
const out = process.stdout;
const drained = () => new Promise((resolve) => out.once("drain", resolve));
const write = async (line) => { if (!out.write(line)) await drained(); };
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const first = await lines.next();
if (first.done) process.exit(0);
const script = JSON.parse(first.value);
for (const step of script.steps) {
  if (step.emit) {
    await write(JSON.stringify({ event: step.emit }) + "\n");
  } else if (step.deltas) {
    const d = step.deltas;
    const type = d.kind === "reasoning" ? "reasoning.delta" : "message.delta";
    const line = JSON.stringify({ event: { type, itemId: d.itemId ?? "item_1", text: d.text ?? "x" } }) + "\n";
    // Batched like a real CLI's buffered output; one write per line would measure syscalls.
    for (let left = d.count; left > 0; left -= 1024) {
      if (!out.write(line.repeat(Math.min(1024, left)))) await drained();
    }
  } else if (step.crash) {
    process.exit(step.crash.exitCode);
  } else if (step.waitForAbort) {
    await write(JSON.stringify({ control: step }) + "\n");
    setInterval(() => {}, 1 << 30);
    await new Promise(() => {});
  } else {
    await write(JSON.stringify({ control: step }) + "\n");
  }
}
// Exit only once stdout is flushed: process.exit() may drop what is still queued for a socket.
out.end(JSON.stringify({ done: true }) + "\n", () => process.exit(0));
`;
