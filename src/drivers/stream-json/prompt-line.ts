/**
 * What a stream-json run writes as its prompt: the prompt with its inputs as one user line, built
 * before any process is touched. (The agent's resources travel with the process: see
 * process-dir.ts.)
 */
import type { RunRequest } from "../../driver/types.js";
import type { StreamJsonDialect } from "./dialect.js";
import { buildUserLine } from "./user-message.js";
import type { UserLine } from "./wire.js";

/** The CLI's own slash command for native compaction (`RunRequest.operation: "compact"`); it works in stream-json mode. */
export const COMPACT_COMMAND = "/compact";

export function promptLine(dialect: StreamJsonDialect, request: RunRequest): Promise<UserLine> {
  const prompt = request.operation === "compact" ? COMPACT_COMMAND : request.prompt;
  return buildUserLine(prompt, request.inputs, {
    image: request.inputs.length > 0 ? (dialect.inputs.image.mediaTypes ?? []) : [],
    file: request.inputs.length > 0 ? (dialect.inputs.file.mediaTypes ?? []) : [],
  });
}
