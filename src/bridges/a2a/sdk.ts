/**
 * `@a2a-js/sdk` (the A2A project's own SDK), loaded on first use: it is an optional peer
 * dependency, so nothing in this bridge imports it statically. A host without it gets an error
 * naming the install command before anything is served or sent.
 */
import { ExecutableNotFoundError } from "../../errors/index.js";
import type { A2ASdkImporter } from "./importer.js";

export const A2A_SDK_INSTALL = "npm install @a2a-js/sdk";

/** The three entry points the bridge uses. */
export interface A2ASdk {
  core: typeof import("@a2a-js/sdk");
  server: typeof import("@a2a-js/sdk/server");
  client: typeof import("@a2a-js/sdk/client");
}

export type { A2ASdkImporter } from "./importer.js";

const defaultImporter: A2ASdkImporter = async (): Promise<A2ASdk> => {
  const [core, server, client] = await Promise.all([import("@a2a-js/sdk"), import("@a2a-js/sdk/server"), import("@a2a-js/sdk/client")]);
  return { core, server, client };
};

let loaded: A2ASdk | undefined;

/** Loads the SDK; a missing package is `ExecutableNotFoundError` naming `npm install @a2a-js/sdk`. */
export async function loadA2ASdk(importer: A2ASdkImporter = defaultImporter): Promise<A2ASdk> {
  if (importer === defaultImporter && loaded !== undefined) return loaded;
  try {
    const sdk = (await importer()) as A2ASdk;
    if (importer === defaultImporter) loaded = sdk;
    return sdk;
  } catch (cause) {
    throw new ExecutableNotFoundError("@a2a-js/sdk", "the @a2a-js/sdk package is not installed", { install: A2A_SDK_INSTALL, cause });
  }
}
