/** The `initialize` capabilities a run depends on, read leniently (a flag the agent did not send is `false`). */
import type { InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { at, within, wire } from "./wire.js";

export interface AgentCaps {
  /** `promptCapabilities.image`: image content blocks are accepted. */
  image: boolean;
  /** `promptCapabilities.audio`: audio content blocks are accepted. */
  audio: boolean;
  /** `promptCapabilities.embeddedContext`: embedded resources are accepted. */
  embeddedContext: boolean;
  /** `loadSession`: `session/load` replays and continues a session. */
  loadSession: boolean;
  /** `sessionCapabilities.resume`: `session/resume` continues a session without a replay. */
  resume: boolean;
  /** `sessionCapabilities.fork`: `session/fork` branches a session. */
  fork: boolean;
  /** `mcpCapabilities.http`: HTTP MCP servers can be offered. */
  mcpHttp: boolean;
}

export function agentCaps(init: unknown): AgentCaps {
  const caps = within(wire<InitializeResponse>(init) ?? {}, "agentCapabilities");
  const prompt = within(caps, "promptCapabilities");
  const session = within(caps, "sessionCapabilities");
  return {
    image: prompt.image === true,
    audio: prompt.audio === true,
    embeddedContext: prompt.embeddedContext === true,
    loadSession: caps.loadSession === true,
    resume: at(session, "resume") !== undefined,
    fork: at(session, "fork") !== undefined,
    mcpHttp: within(caps, "mcpCapabilities").http === true,
  };
}
