/**
 * `agent-adaptor/server`: the attach server — sessions, approvals, questions, threads and
 * inspections over an HTTP API with bearer-token auth, events as server-sent events with replay,
 * an OpenAPI document generated from the route schemas, and the web console. See docs/server.md.
 *
 * @packageDocumentation
 */
export { createAttachServer, DEFAULT_MAX_BODY_BYTES } from "./server.js";
export type { AttachServer, AttachServerOptions } from "./server.js";
export { loadServerConfig, parseServerConfig } from "./config.js";
export type { AgentConfig, ServerConfig } from "./config.js";
export { SERVER_DRIVER_NAMES } from "./driver-names.js";
export type { ServerDriverName } from "./driver-names.js";
export { DEFAULT_HOST, DEFAULT_PORT } from "./host.js";
export { SERVER_ERROR_STATUS } from "./http-error.js";
export type { ErrorBody, ServerErrorCode } from "./http-error.js";
export type { PendingApproval, PendingQuestion, QueuedPromptView, SessionView, ThreadView } from "./schemas.js";
export type { GateState, SessionState } from "../session/types.js";
