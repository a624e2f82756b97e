/** The attach server's HTTP API, with the bearer token on every request. */
import type { AgentInfo, ApiErrorBody, Inspection, PendingApproval, PendingQuestion, QueuedPrompt, SessionView } from "./wire.js";
import type { ApprovalAnswer } from "./approvals.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type ResumeMode = "continue" | "steer" | "abandon";

export interface Api {
  agents(): Promise<AgentInfo[]>;
  /** The newest `limit` sessions (the server's maximum is 1000). */
  sessions(limit: number): Promise<SessionView[]>;
  session(id: string): Promise<SessionView>;
  createSession(agent: string): Promise<SessionView>;
  archive(id: string): Promise<SessionView>;
  submit(id: string, text: string): Promise<{ promptId: string }>;
  steer(id: string, text: string): Promise<{ delivery: "native" | "next_run" }>;
  followUp(id: string, text: string): Promise<void>;
  interrupt(id: string): Promise<{ wasRunning: boolean }>;
  hold(id: string, reason: string): Promise<{ wasRunning: boolean }>;
  pause(id: string, reason: string): Promise<void>;
  resume(id: string, mode: ResumeMode, message?: string): Promise<void>;
  /** Raise the session's cost and/or token ceilings (clears a tripped session ceiling once above spend). */
  addBudget(id: string, amount: { usd?: number; tokens?: number }): Promise<SessionView>;
  /** Set the model and effort of later runs (`null`: back to the agent's default; absent: unchanged). */
  configure(id: string, settings: { model?: string | null; effort?: string | null }): Promise<SessionView>;
  /** Clear a tripped run ceiling so the next run may start. */
  resetRunCeiling(id: string): Promise<SessionView>;
  pending(id: string): Promise<{ approvals: PendingApproval[]; questions: PendingQuestion[] }>;
  /** The messages waiting in the session's inbox, oldest first (text cut by the server at 2000 characters). */
  queue(id: string): Promise<QueuedPrompt[]>;
  approve(id: string, requestId: string, answer: ApprovalAnswer): Promise<void>;
  answer(id: string, requestId: string, answers: Record<string, string | string[]>): Promise<void>;
  decline(id: string, requestId: string): Promise<void>;
  inspection(id: string): Promise<Inspection>;
  /** The events URL of a session (for `followEvents`). */
  eventsUrl(id: string): string;
}

/** `base`: the API root, e.g. "api/" relative to the console's page. */
export function createApi(token: string, base = "api/", doFetch: typeof fetch = globalThis.fetch.bind(globalThis)): Api {
  const s = (id: string): string => `${base}sessions/${encodeURIComponent(id)}`;
  async function call<T>(method: "GET" | "POST", url: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    // `cache` is a browser field (Node's fetch types lack it): nothing the API answers is reused from a cache.
    const init: RequestInit & { cache?: "no-store" } = { method, headers, cache: "no-store", ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
    const response = await doFetch(url, init);
    const text = await response.text();
    let value: unknown;
    try {
      value = text === "" ? undefined : JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!response.ok) {
      const error = (value as Partial<ApiErrorBody> | undefined)?.error;
      throw new ApiError(response.status, error?.code ?? "http_error", error?.message ?? `HTTP ${response.status}`);
    }
    return value as T;
  }
  return {
    agents: async () => (await call<{ agents: AgentInfo[] }>("GET", `${base}agents`)).agents,
    sessions: async (limit) => (await call<{ sessions: SessionView[] }>("GET", `${base}sessions?limit=${limit}`)).sessions,
    session: (id) => call("GET", s(id)),
    createSession: (agent) => call("POST", `${base}sessions`, { agent }),
    archive: (id) => call("POST", `${s(id)}/archive`),
    submit: (id, text) => call("POST", `${s(id)}/submit`, { text }),
    steer: (id, text) => call("POST", `${s(id)}/steer`, { text }),
    followUp: async (id, text) => void (await call("POST", `${s(id)}/follow-up`, { text })),
    interrupt: (id) => call("POST", `${s(id)}/interrupt`),
    hold: (id, reason) => call("POST", `${s(id)}/hold`, { reason }),
    pause: async (id, reason) => void (await call("POST", `${s(id)}/pause`, { reason })),
    resume: async (id, mode, message) => void (await call("POST", `${s(id)}/resume`, { mode, ...(message !== undefined && message !== "" ? { message } : {}) })),
    addBudget: (id, amount) => call("POST", `${s(id)}/budget`, amount),
    resetRunCeiling: (id) => call("POST", `${s(id)}/reset-run-ceiling`),
    configure: (id, settings) => call("POST", `${s(id)}/configure`, settings),
    pending: (id) => call("GET", `${s(id)}/pending`),
    queue: async (id) => (await call<{ prompts: QueuedPrompt[] }>("GET", `${s(id)}/queue`)).prompts,
    approve: async (id, requestId, answer) => void (await call("POST", `${s(id)}/approvals/${encodeURIComponent(requestId)}`, answer)),
    answer: async (id, requestId, answers) => void (await call("POST", `${s(id)}/questions/${encodeURIComponent(requestId)}`, { answers })),
    decline: async (id, requestId) => void (await call("POST", `${s(id)}/questions/${encodeURIComponent(requestId)}`, { decline: true })),
    inspection: (id) => call("GET", `${s(id)}/inspection`),
    eventsUrl: (id) => `${s(id)}/events`,
  };
}
