/**
 * What core records about each agent it creates for the helpers that stand beside a driver (the
 * openai() transcript import): the driver the agent was created over and its thread store; and,
 * for sessions, whether its `close()` began. Those helpers may not import core, and the `Agent`
 * surface shows none of it, so core registers them here when it creates the agent. Not part of
 * the public API.
 */
import type { Driver } from "./types.js";

export interface AgentLink {
  readonly driver: Driver;
  /** The agent's `ThreadStore` (typed by the helper that reads it: the SPI does not know the port). */
  readonly threadStore: unknown;
  /** Whether the agent's `close()` began: a session refuses new prompts then, as the agent would. */
  closed(): boolean;
}

const links = new WeakMap<object, AgentLink>();

/** Records `link` for `agent` (core, once, when it creates the agent). */
export function linkAgent(agent: object, link: AgentLink): void {
  links.set(agent, link);
}

/** The link core recorded for `agent`; undefined for anything core did not create. */
export function agentLinkOf(agent: unknown): AgentLink | undefined {
  return typeof agent === "object" && agent !== null ? links.get(agent) : undefined;
}
