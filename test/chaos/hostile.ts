/**
 * A hostile provider: an executable that runs a family's fake provider, relays its stdout line by
 * line and, once a line containing a trigger has been relayed (or at once for `silent_initialize`),
 * misbehaves in one way. The fake itself stays unchanged, so each condition is the same for every
 * driver family.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const HOSTILE_CONDITIONS = [
  "garbage",
  "invalid_utf8",
  "huge_frame",
  "bulk_frames",
  "partial_line_exit",
  "exit_1",
  "closed_stdout",
  "silent_initialize",
  "stderr_flood",
  "key_echo",
] as const;
export type HostileCondition = (typeof HOSTILE_CONDITIONS)[number];

/** Lines of 1 KiB that are JSON but no protocol message, written by `bulk_frames`. */
export const BULK_FRAMES = 20_000;
/** Bytes written to stderr by `stderr_flood`. */
export const STDERR_FLOOD_BYTES = 32 * 1024 * 1024;
/** Length of the `huge_frame` line: over the default 8 MiB frame limit. */
export const HUGE_FRAME_BYTES = 12 * 1024 * 1024;

export interface HostileOptions {
  condition: HostileCondition;
  /** The fake provider's command line. */
  command: string;
  args: string[];
  /** Relayed line after which the condition starts. */
  trigger: string;
  /** Environment variable holding the key that `key_echo` prints. */
  keyEnv: string;
  /** File the wrapper writes its pid (its process group) to. */
  pidFile: string;
  /** Frames `bulk_frames` writes (default {@link BULK_FRAMES}). */
  bulkFrames?: number;
}

/** Writes the hostile executable into `dir` and returns its path. */
export function writeHostileProvider(dir: string, name: string, options: HostileOptions): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!${process.execPath}
const { spawn } = require("node:child_process");
const { closeSync, writeFileSync, writeSync } = require("node:fs");
const o = ${JSON.stringify(options)};
writeFileSync(o.pidFile, String(process.pid));
const child = spawn(o.command, [...o.args, ...process.argv.slice(2)], { stdio: ["inherit", "pipe", "inherit"] });
child.on("exit", (code, signal) => process.exit(code ?? 1));
const out = (data) => { let off = 0; const b = Buffer.isBuffer(data) ? data : Buffer.from(data); while (off < b.length) { try { off += writeSync(1, b, off); } catch (e) { if (e.code !== "EAGAIN") throw e; } } };
const err = (data) => { let off = 0; const b = Buffer.isBuffer(data) ? data : Buffer.from(data); while (off < b.length) { try { off += writeSync(2, b, off); } catch (e) { if (e.code !== "EAGAIN") return; } } };
const idle = () => { setInterval(() => {}, 1 << 30); };
let state = o.condition === "silent_initialize" ? "silent" : "relaying";
let buffered = "";
const hostile = {
  garbage() { for (let i = 0; i < 50; i++) out("\\u0001garbage {[ not json " + i + "\\n"); },
  invalid_utf8() { out(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a])); },
  huge_frame() { out('{"huge":"' + "x".repeat(${HUGE_FRAME_BYTES}) + '"}\\n'); },
  bulk_frames() { const pad = "y".repeat(1000); let batch = ""; for (let i = 0; i < (o.bulkFrames ?? ${BULK_FRAMES}); i++) { batch += '{"bulk":' + i + ',"pad":"' + pad + '"}\\n'; if (batch.length > 65536) { out(batch); batch = ""; } } out(batch); },
  partial_line_exit() { out('{"id":1,"result":{"partial'); child.kill("SIGKILL"); process.exit(0); },
  exit_1() { err("fatal: the provider gave up\\n"); process.exit(1); },
  closed_stdout() { closeSync(1); state = "closed"; child.stdout.resume(); idle(); },
  stderr_flood() { const line = "warning: the provider is chatty ".repeat(64) + "\\n"; for (let n = 0; n < ${STDERR_FLOOD_BYTES}; n += line.length) err(line); },
  key_echo() { const key = process.env[o.keyEnv] ?? ""; err("using api key " + key + "\\n"); out("rejected key=" + key + " {\\n"); },
};
child.stdout.on("data", (chunk) => {
  if (state !== "relaying") return;
  buffered += chunk;
  let nl;
  while (state === "relaying" && (nl = buffered.indexOf("\\n")) >= 0) {
    const line = buffered.slice(0, nl + 1);
    buffered = buffered.slice(nl + 1);
    out(line);
    if (line.includes(o.trigger)) {
      state = "fired";
      hostile[o.condition]();
      if (state === "fired") state = "relaying";
      if (o.condition === "key_echo" || o.condition === "garbage" || o.condition === "invalid_utf8" || o.condition === "huge_frame" || o.condition === "bulk_frames" || o.condition === "stderr_flood") {
        o.trigger = "\\u0000never";
      }
    }
  }
});
if (state === "silent") idle();
`,
  );
  chmodSync(path, 0o755);
  return path;
}
