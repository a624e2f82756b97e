/**
 * The attach server's public shapes, written out so the API report and a reader see them whole.
 * The zod schemas in schemas.ts and config.ts validate the same shapes; a type test keeps the two
 * equal (test/server/api/public-types.test.ts). Types only, and Node-free: the browser console
 * imports them too.
 */
import type { GateState, SessionState } from "../session/view-types.js";

/** One configured agent: a driver by name, its own options, the agent's call defaults. */
export interface AgentConfig {
  driver: "codex" | "claude" | "codebuddy" | "acp" | "codex-acp" | "gemini" | "qwen" | "cursor" | "copilot" | "pi" | "openai" | "fake" | "demo";
  /** Must exist; required except for the `demo` driver (which makes its own). */
  workspace?: string;
  /** The driver factory's own options, passed through: each driver refuses keys it does not know. */
  options?: Record<string, unknown>;
  /** The agent's call defaults (model, effort, policy), validated by `createAgent`. */
  defaults?: Record<string, unknown>;
}

/** The whole configuration (a JSON or TOML file's content, validated). */
export interface ServerConfig {
  server?: {
    host?: string;
    port?: number;
    maxBodyBytes?: number;
    cors?: { origins: string[] };
    /** Mount each agent's AG-UI endpoint at `POST /api/agents/:name/ag-ui` (needs `@ag-ui/core`). */
    agUi?: boolean;
    /** Mount each agent's A2A server at `/api/a2a/:name` (needs `@a2a-js/sdk`). */
    a2a?: boolean;
    /** Close a session unused this long (no event stream, no run, no request waiting), ms. Default 5 minutes. */
    idleCloseMs?: number;
  };
  /** Exactly one of `sqlite` (a file) or `postgres` (a URL, tables in `schema`). Default: `<stateDir>/serve.db`. */
  store?: { sqlite?: string; postgres?: string; schema?: string };
  /** Agents by name (letters, digits, `_`, `.`, `-`; at most 64). */
  agents: Record<string, AgentConfig>;
}

/** A session as the API shows it: its status, the agent it runs on, and whether this server drives it now. */
export interface SessionView {
  id: string;
  /** The configured agent's name. */
  agent: string;
  state: SessionState;
  sleepReason?: string;
  gate: GateState;
  guardrails: {
    spentUsd: number;
    spentTokens: number;
    budget: { sessionUsd?: number; runUsd?: number; sessionTokens?: number; runTokens?: number };
    tripped?: { ceiling: string; at: string; runId?: string };
  };
  /** Prompt ids waiting in the inbox. */
  queued: string[];
  inFlight?: { runId: string; promptIds: string[] };
  settings: { model?: string; effort?: string };
  threadId: string;
  lastSeq: number;
  /** The provider's own commands as last advertised in this session's conversation (ACP agents), when known. */
  nativeCommands?: { name: string; description?: string; argumentHint?: string }[];
  /** Whether this server drives the session now (it is opened on demand); false once it has let the session go. */
  live: boolean;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, string>;
}

/** A thread as the API shows it. */
export interface ThreadView {
  id: string;
  driver: string;
  workspace: string;
  providerSessionId?: string;
  parentId?: string;
  metadata: Record<string, string>;
  /** Whether a writer holds the thread now. */
  leased: boolean;
  createdAt: string;
  updatedAt: string;
}

/** An approval the run in flight waits for. */
export interface PendingApproval {
  runId: string;
  /** The session seq of its `approval.requested` event. */
  seq: number;
  requestId: string;
  kind: string;
  callId?: string;
  summary: string;
  options: { id: string; label: string; kind: string }[];
}

/** A question the run in flight waits for; `questions` as in the `question.requested` event. */
export interface PendingQuestion {
  runId: string;
  seq: number;
  requestId: string;
  questions: Record<string, unknown>[];
}

/** A message waiting in a session's inbox (`GET /api/sessions/:id/queue`), oldest first. */
export interface QueuedPromptView {
  promptId: string;
  kind: "prompt" | "steer" | "follow_up";
  /** Who queued it (the submit's `from`), when given. */
  from?: string;
  queuedAt: string;
  /** The message, cut at 2000 characters (then `truncated`). */
  text: string;
  truncated?: boolean;
  /** Inputs attached to it in this process. */
  inputCount: number;
}
