/** The console: the session list beside the selected session, the stream indicator and errors on top. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, createApi } from "../api.js";
import { pollWhileVisible } from "../visible-poll.js";
import type { AgentInfo, SessionView } from "../wire.js";
import { SessionDetail, type StreamIndicator } from "./session-detail.js";
import { SessionList } from "./session-list.js";

/** How often the session list is refreshed while the page is visible (not at all while hidden), ms. */
const LIST_REFRESH_MS = 3000;
/** Sessions listed: the newest this many (the list says so when there may be more). */
export const SESSION_LIST_LIMIT = 100;

const STATUS_TEXT: Record<StreamIndicator, string> = {
  idle: "No session selected",
  ended: "Archived",
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
};

export function App({ token }: { token: string | undefined }): VNode {
  if (token === undefined) {
    return html`<main class="token-missing" data-testid="token-missing">
      <h1>agent-adaptor console</h1>
      <p>This page needs the server's token. Open the URL that <code>agent-adaptor serve</code> printed: it ends in <code>#token=…</code>.</p>
    </main>`;
  }
  return html`<${Console} token=${token} />`;
}

function Console({ token }: { token: string }): VNode {
  const api = useMemo(() => createApi(token), [token]);
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  const [sessions, setSessions] = useState<SessionView[]>([]);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [unauthorized, setUnauthorized] = useState(false);
  const [stream, setStream] = useState<{ status: StreamIndicator; attempt?: number }>({ status: "idle" });

  const report = useCallback((e: unknown): void => {
    if (e instanceof ApiError) {
      if (e.status === 401) setUnauthorized(true);
      setError(`${e.code}: ${e.message}`);
    } else setError(e instanceof Error ? e.message : String(e));
  }, []);
  const run = useCallback(
    async (work: () => Promise<unknown>): Promise<void> => {
      try {
        await work();
        setError(undefined);
      } catch (e) {
        report(e);
        throw e;
      }
    },
    [report],
  );
  const refresh = useCallback(() => {
    api.sessions(SESSION_LIST_LIMIT).then(setSessions, report);
  }, [api, report]);

  useEffect(() => {
    api.agents().then(setAgents, report);
    refresh();
    // The server has no live channel for the list; a hidden tab does not poll.
    return pollWhileVisible(refresh, LIST_REFRESH_MS);
  }, [api, refresh, report]);

  const create = async (agent: string): Promise<void> => {
    await run(async () => {
      const view = await api.createSession(agent);
      setSessions((prev) => [view, ...prev.filter((s) => s.id !== view.id)]);
      setSelected(view.id);
    }).catch(() => undefined);
  };
  const onStreamStatus = useCallback((status: StreamIndicator, detail?: { attempt: number }) => setStream({ status, ...(detail ? { attempt: detail.attempt } : {}) }), []);

  if (unauthorized) {
    return html`<main class="token-missing" data-testid="token-missing">
      <h1>agent-adaptor console</h1>
      <p role="alert">The server refused this tab's token. Open the URL that <code>agent-adaptor serve</code> printed again.</p>
    </main>`;
  }
  const current = sessions.find((s) => s.id === selected);
  return html`<div class="layout">
    <header class="top">
      <h1>agent-adaptor console</h1>
      <span class=${`stream-status stream-${stream.status}`} role="status" data-testid="stream-status" data-state=${stream.status}>
        ${STATUS_TEXT[stream.status]}${stream.status === "reconnecting" && stream.attempt !== undefined ? ` (attempt ${stream.attempt})` : ""}
      </span>
    </header>
    ${error !== undefined
      ? html`<div class="error" role="alert" data-testid="error">${error} <button type="button" class="btn-link" onClick=${() => setError(undefined)} aria-label="Dismiss error">×</button></div>`
      : null}
    <aside><${SessionList} sessions=${sessions} limit=${SESSION_LIST_LIMIT} agents=${agents} selected=${selected} onSelect=${setSelected} onCreate=${create} /></aside>
    <main>
      ${selected !== undefined
        ? html`<${SessionDetail}
            key=${selected}
            id=${selected}
            session=${current}
            api=${api}
            token=${token}
            run=${run}
            onStreamStatus=${onStreamStatus}
            onChanged=${refresh}
            onFatal=${(message: string) => setError(message)}
          />`
        : html`<p class="muted placeholder">Select a session, or create one.</p>`}
    </main>
  </div>`;
}
