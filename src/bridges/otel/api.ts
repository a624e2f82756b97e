/**
 * `@opentelemetry/api`, loaded on first use: an optional peer dependency, so nothing in this
 * bridge imports it statically. Without it, `openTelemetry()` rejects naming the install command.
 */
import { ExecutableNotFoundError } from "../../errors/index.js";


import { OTEL_API_INSTALL, type OtelApiImporter } from "./importer.js";

/** The OpenTelemetry API module. */
export type OtelApi = typeof import("@opentelemetry/api");

const defaultImporter: OtelApiImporter = () => import("@opentelemetry/api");

/** Loads `@opentelemetry/api`; a missing package is `ExecutableNotFoundError` naming `npm install @opentelemetry/api`. */
export async function loadOtelApi(importer: OtelApiImporter = defaultImporter): Promise<OtelApi> {
  try {
    return (await importer()) as OtelApi;
  } catch (cause) {
    throw new ExecutableNotFoundError("@opentelemetry/api", "the @opentelemetry/api package is not installed", { install: OTEL_API_INSTALL, cause });
  }
}
