/** What the route modules need from the server: its sessions, agents, stores and lifetime. */
import type { ThreadStore } from "../../thread/store.js";
import type { ServedAgent } from "../agents.js";
import type { SessionHub } from "../sessions.js";

export interface RouteContext {
  hub: SessionHub;
  agents: ReadonlyMap<string, ServedAgent>;
  threads: ThreadStore;
  version: string;
  startedAt: number;
  /** Aborted when the server closes: ends every event stream. */
  closing: AbortSignal;
}
