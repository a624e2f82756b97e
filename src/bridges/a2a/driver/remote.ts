/**
 * One connection to the remote agent: the SDK's client over a `fetch` that adds the configured
 * credentials and notes an HTTP 401/403, so a refusal reads as `auth_required` whatever the SDK
 * made of it. Failures become this library's errors here.
 */
import type { AgentCard } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { AdaptorError, AuthRequiredError, ProviderError, type DeliveryPhase } from "../../../errors/index.js";
import type { A2ASdk } from "../sdk.js";
import { authHeaders, type A2AConfig } from "./config.js";

const WELL_KNOWN = ".well-known/agent-card.json";

export class Remote {
  /** The last HTTP status that refused the credentials, if any. */
  refused: number | undefined;
  readonly #config: A2AConfig;
  readonly fetch: typeof fetch;

  constructor(config: A2AConfig) {
    this.#config = config;
    this.fetch = async (input, init) => {
      const headers = new Headers(input instanceof Request ? input.headers : undefined);
      new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
      for (const [name, value] of Object.entries(authHeaders(this.#config.auth))) if (!headers.has(name)) headers.set(name, value);
      const response = await fetch(input, { ...init, headers });
      if (response.status === 401 || response.status === 403) this.refused = response.status;
      return response;
    };
  }

  /**
   * Reads the agent card: at `cardPath` (relative to the URL) when configured, else at
   * `<url>/.well-known/agent-card.json`, then at the origin's well-known path.
   */
  async card(sdk: A2ASdk): Promise<AgentCard> {
    const resolver = new sdk.client.DefaultAgentCardResolver({ fetchImpl: this.fetch });
    const base = this.#config.url.replace(/\/+$/, "");
    if (this.#config.cardPath !== undefined) return resolver.resolve(`${base}/${this.#config.cardPath.replace(/^\/+/, "")}`, "");
    try {
      return await resolver.resolve(`${base}/${WELL_KNOWN}`, "");
    } catch (error) {
      const root = new URL(`/${WELL_KNOWN}`, base).href;
      if (this.refused !== undefined || root === `${base}/${WELL_KNOWN}`) throw error;
      return resolver.resolve(root, "");
    }
  }

  /** A client for `card`, over JSON-RPC or HTTP+JSON, whichever the card offers. */
  async client(sdk: A2ASdk, card: AgentCard): Promise<Client> {
    const factory = new sdk.client.ClientFactory(
      sdk.client.ClientFactoryOptions.createFrom(sdk.client.ClientFactoryOptions.default, {
        transports: [new sdk.client.JsonRpcTransportFactory({ fetchImpl: this.fetch }), new sdk.client.RestTransportFactory({ fetchImpl: this.fetch })],
        cardResolver: new sdk.client.DefaultAgentCardResolver({ fetchImpl: this.fetch }),
      }),
    );
    return factory.createFromAgentCard(card);
  }

  /** This library's error for a failed call. */
  failure(error: unknown, phase: DeliveryPhase): Error {
    if (this.refused !== undefined) {
      return new AuthRequiredError(`a2a: the remote agent refused the credentials (HTTP ${this.refused})`, { remedy: "set the driver's auth (token, tokenEnv or headers)", cause: error });
    }
    if (AdaptorError.is(error) || (error instanceof Error && error.name === "AbortError")) return error as Error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof TypeError && /fetch failed/i.test(message)) {
      return new ProviderError("a2a: the remote agent could not be reached", { code: "provider_unreachable", retryable: true, phase, cause: error });
    }
    return new ProviderError(`a2a: ${message}`, { phase, cause: error });
  }
}
