/**
 * `@ag-ui/core`'s own schemas, loaded on first use: an optional peer dependency, so nothing in
 * this bridge imports it statically. The endpoint validates every `RunAgentInput` with the
 * protocol's `RunAgentInputSchema`; a host without the package gets an error naming the install
 * command when it creates the endpoint.
 */
import { ExecutableNotFoundError } from "../../errors/index.js";

export const AG_UI_INSTALL = "npm install @ag-ui/core";

/** What the endpoint uses of a zod schema: `safeParse`. */
export interface SchemaLike {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** The part of `@ag-ui/core/schemas` the endpoint uses. */
export interface AgUiSchemas {
  RunAgentInputSchema: SchemaLike;
}

/** How the schemas are imported (a test passes one that fails). */
export type AgUiSchemasImporter = () => Promise<AgUiSchemas>;

const defaultImporter: AgUiSchemasImporter = async () => (await import("@ag-ui/core/schemas")) as unknown as AgUiSchemas;

/** Loads `@ag-ui/core/schemas`; a missing package is `ExecutableNotFoundError` naming `npm install @ag-ui/core`. */
export async function loadAgUiSchemas(importer: AgUiSchemasImporter = defaultImporter): Promise<AgUiSchemas> {
  try {
    return await importer();
  } catch (cause) {
    throw new ExecutableNotFoundError("@ag-ui/core", "the @ag-ui/core package is not installed", { install: AG_UI_INSTALL, cause });
  }
}
