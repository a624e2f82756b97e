/**
 * `hostTool()`: a host tool defined with its handler's arguments typed from its schema.
 */
import type { HostTool, ToolInputSchema } from "../../driver/vocabulary.js";

/**
 * Defines a host tool; with a Standard Schema (zod 4, valibot, ...) the handler's arguments take
 * the schema's output type. The value is returned as given: checks happen at `createAgent` (or
 * at the call, for `services`).
 *
 * @example
 * ```ts
 * const lookup = hostTool({
 *   name: "lookup_order",
 *   description: "Looks an order up by its id",
 *   inputSchema: z.object({ id: z.string() }),
 *   handler: async ({ id }, { signal }) => orders.get(id, { signal }),
 * });
 * createAgent(driver, { tools: [lookup] });
 * ```
 */
export function hostTool<S extends ToolInputSchema>(tool: HostTool<S>): HostTool<S> {
  return tool;
}
