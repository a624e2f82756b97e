/**
 * What a stream-json run writes as its prompt: the prompt with its inputs as one user line, built
 * before any process is touched. (The agent's resources travel with the process: see
 * process-dir.ts.)
 */
import type { RunRequest } from "../../driver/types.js";
import type { StreamJsonDialect } from "./dialect.js";
import { buildUserLine } from "./user-message.js";
import type { UserLine } from "./wire.js";

export function promptLine(dialect: StreamJsonDialect, request: RunRequest): Promise<UserLine> {
  return buildUserLine(request.prompt, request.inputs, {
    image: request.inputs.length > 0 ? (dialect.inputs.image.mediaTypes ?? []) : [],
    file: request.inputs.length > 0 ? (dialect.inputs.file.mediaTypes ?? []) : [],
  });
}
