/**
 * `agent-adaptor/bridges/otel`: OpenTelemetry spans and metrics for an agent, with the GenAI
 * semantic conventions, as an agent observer. `@opentelemetry/api` is an optional peer
 * dependency, loaded when `openTelemetry()` is called (`npm install @opentelemetry/api`).
 */
export { openTelemetry } from "./observer.js";
export type { OpenTelemetryOptions } from "./observer.js";
export { OTEL_API_INSTALL } from "./importer.js";
export type { MeterProviderLike, OtelApiImporter, TracerProviderLike } from "./importer.js";
export { ATTR as OTEL_ATTRIBUTES, METRIC as OTEL_METRICS, OPERATION as OTEL_OPERATIONS, SCOPE_NAME as OTEL_SCOPE_NAME } from "./semconv.js";
