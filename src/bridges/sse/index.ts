/**
 * `agent-adaptor/bridges/sse`: a run's events, or a session's event log, as server-sent events —
 * a web `ReadableStream`, a web `Response`, node:http and hono helpers with `Last-Event-ID`
 * resume — and the companion POST endpoint answering approvals and questions.
 *
 * @packageDocumentation
 */
export { toSSE, SSE_STREAM_ERROR_EVENT } from "./to-sse.js";
export type { ToSseOptions } from "./to-sse.js";
export { sseResponse, honoSSE } from "./response.js";
export type { SseResponseOptions, HonoContextLike } from "./response.js";
export { writeSSE } from "./node.js";
export type { WriteSseOptions } from "./node.js";
export { SSE_HEADERS } from "./headers.js";
export { parseLastEventId } from "./frames.js";
export { sseActionsHandler, sseActionsNodeHandler } from "./actions.js";
export type { RequestAnswerer, SseActionsOptions, SseActionErrorCode, SseActionResult } from "./actions.js";
export type { ActionTarget } from "./actions-body.js";
export type { BridgeEntry, BridgeSource, SessionEventLog } from "../shared/event-source.js";
