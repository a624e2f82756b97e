/**
 * How `@opentelemetry/api` is imported (a test passes one that fails). Its own module, typed
 * without the API's types: the bridge's public declarations compile where the optional package
 * is not installed.
 */
export type OtelApiImporter = () => Promise<unknown>;

/** The command that installs the optional peer. */
export const OTEL_API_INSTALL = "npm install @opentelemetry/api";

/** A tracer provider: the SDK's (`BasicTracerProvider`, `NodeTracerProvider`) or the API's. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** A meter provider: the SDK's (`MeterProvider`) or the API's. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): unknown;
}
