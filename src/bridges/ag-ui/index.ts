/**
 * `agent-adaptor/bridges/ag-ui`: runs as AG-UI event streams (CopilotKit and other AG-UI
 * front ends) and an AG-UI HTTP endpoint. `@ag-ui/core` is an optional peer dependency, loaded
 * only by the endpoint (`npm install @ag-ui/core`).
 */
export { toAgUi } from "./to-ag-ui.js";
export type { ToAgUiOptions } from "./to-ag-ui.js";
export { agUiHandler } from "./handler.js";
export type { AgUiHandler, AgUiHandlerOptions } from "./handler.js";
export type { AgUiRunInput } from "./input.js";
export { AG_UI_INSTALL } from "./schemas.js";
export type { AgUiSchemas, AgUiSchemasImporter, SchemaLike } from "./schemas.js";
export { encodeAgUiEvent } from "./sse.js";
export { AG_UI_STATE_KEY } from "./events.js";
export type {
  AgUiEvent,
  AgUiEventBase,
  AgUiEventType,
  AgUiInterrupt,
  AgUiPatchOperation,
  AgUiPendingApproval,
  AgUiPendingQuestion,
  AgUiRunOutcome,
  AgUiRunState,
  AgUiTokenUsage,
} from "./events.js";
