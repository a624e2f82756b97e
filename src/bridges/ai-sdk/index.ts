/**
 * `agent-adaptor/bridges/ai-sdk`: a run as the Vercel AI SDK's UI message stream (protocol v1), so
 * `useChat` renders it — text, reasoning, tool parts with the AI SDK's approval flow, and data
 * parts for approvals, questions, the plan, usage and notices. Produced by hand: the optional
 * peer `ai` is never loaded; install it (`npm install ai`) only for its client or its types.
 *
 * @packageDocumentation
 */
export { toUIMessageStream, uiMessageStreamBytes, uiMessageStreamResponse, writeUIMessageStream, UI_MESSAGE_STREAM_HEADERS } from "./to-ui-message-stream.js";
export type { ToUIMessageStreamOptions, UIMessageStreamResponseOptions } from "./to-ui-message-stream.js";
export type {
  AgentUIMessageChunk,
  AgentUIMessageMetadata,
  AgentUIDataTypes,
  AgentUIApprovalData,
  AgentUIQuestionData,
  AgentUINoticeData,
  AgentUIToolMetadata,
  AgentUIToolOutput,
} from "./chunks.js";
export type { BridgeSource, SessionEventLog } from "../shared/event-source.js";
