/**
 * The optional protocol endpoints (config `[server] agUi = true` / `a2a = true`): each configured
 * agent's AG-UI endpoint and A2A server, from the bridges, built on first use and closed with the
 * server. Both need their optional peer packages (`@ag-ui/core`, `@a2a-js/sdk`); without them a
 * request is answered with the bridge's own error naming the package to install.
 */
import { agUiHandler, type AgUiHandler } from "../bridges/ag-ui/handler.js";
import { a2aServer, type A2AServer } from "../bridges/a2a/server/server.js";
import type { ServedAgent } from "./agents.js";

export class BridgeMounts {
  readonly #agUi = new Map<string, Promise<AgUiHandler>>();
  readonly #a2a = new Map<string, Promise<A2AServer>>();

  /** The agent's AG-UI endpoint (its input's `threadId` is one of the agent's threads). */
  agUi(served: ServedAgent): Promise<AgUiHandler> {
    return once(this.#agUi, served.name, () => agUiHandler({ agent: served.agent }));
  }

  /** The agent's A2A server, announcing `url` (the mount's URL as first reached) in its card. */
  a2a(served: ServedAgent, url: string): Promise<A2AServer> {
    return once(this.#a2a, served.name, () => a2aServer(served.agent, { url }));
  }

  async close(): Promise<void> {
    const all = [...this.#agUi.values(), ...this.#a2a.values()];
    this.#agUi.clear();
    this.#a2a.clear();
    await Promise.allSettled(all.map(async (mount) => (await mount).close()));
  }
}

function once<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let made = cache.get(key);
  if (!made) {
    made = make();
    cache.set(key, made);
    // A failed start (a missing peer package) is tried again by the next request.
    made.catch(() => cache.delete(key));
  }
  return made;
}
