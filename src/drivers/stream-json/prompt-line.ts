/**
 * What a stream-json run writes as its prompt, checked before any process is touched: MCP servers
 * the command line cannot carry are refused, resources the CLI is not given are warned about, and
 * the prompt with its inputs becomes one user line.
 */
import type { EventSink, RunRequest } from "../../driver/types.js";
import { ConfigError } from "../../errors/index.js";
import { mcpProblems } from "./argv.js";
import type { StreamJsonDialect } from "./dialect.js";
import { buildUserLine } from "./user-message.js";
import type { UserLine } from "./wire.js";

export async function promptLine(dialect: StreamJsonDialect, request: RunRequest, sink: EventSink): Promise<UserLine> {
  const unsafeMcp = mcpProblems(request.resources.mcp);
  if (unsafeMcp.length > 0) {
    throw new ConfigError(`${dialect.id}: MCP servers with env or headers cannot be passed on the command line: ${unsafeMcp.join(", ")}`);
  }
  const ignored = [request.resources.tools.length > 0 ? "host tools" : "", request.resources.skills.length > 0 ? "skills" : ""].filter(Boolean);
  if (ignored.length > 0) {
    await sink.emit({ type: "notice", level: "warning", code: "resources_unsupported", message: `${dialect.name} does not receive ${ignored.join(" or ")} from this driver` });
  }
  return buildUserLine(request.prompt, request.inputs, {
    image: request.inputs.length > 0 ? (dialect.inputs.image.mediaTypes ?? []) : [],
    file: request.inputs.length > 0 ? (dialect.inputs.file.mediaTypes ?? []) : [],
  });
}
