/** The `initialize` capabilities a run depends on, read leniently (a flag the agent did not send is `false`). */
import type { InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { bool, open, openOrEmpty, readFrame } from "../../driver/lens.js";

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
  const caps = openOrEmpty(readFrame<InitializeResponse>(init)?.agentCapabilities);
  const prompt = openOrEmpty(caps.promptCapabilities);
  const session = openOrEmpty(caps.sessionCapabilities);
  return {
    image: bool(prompt.image) === true,
    audio: bool(prompt.audio) === true,
    embeddedContext: bool(prompt.embeddedContext) === true,
    loadSession: bool(caps.loadSession) === true,
    resume: open(session.resume) !== undefined,
    fork: open(session.fork) !== undefined,
    mcpHttp: bool(openOrEmpty(caps.mcpCapabilities).http) === true,
  };
}
