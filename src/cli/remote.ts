/**
 * `sessions` and `threads`: client commands of a running attach server. Each prints a table or
 * a short line for a person, or the server's JSON with `--json` (stdout carries nothing else).
 */
import type { Command } from "commander";
import { ApiClient, DEFAULT_URL, type RemoteFlags } from "./client.js";
import { CliError, EXIT, USAGE_INVALID, type ExitCode } from "./exit.js";
import { renderFields, renderTable } from "./table.js";
import { colorsFor } from "./terminal.js";

/** The fields of a session view the tables show (the rest is in `--json`). */
interface SessionView {
  id: string;
  agent?: string;
  state: string;
  gate?: { open: boolean; by?: string; reason?: string };
  guardrails?: {
    spentUsd?: number;
    spentTokens?: number;
    budget?: { sessionUsd?: number; runUsd?: number; sessionTokens?: number; runTokens?: number };
    tripped?: { ceiling?: string };
  };
  queued?: string[];
  inFlight?: { runId: string };
  threadId?: string;
  lastSeq?: number;
  createdAt?: string;
  updatedAt?: string;
  settings?: { model?: string; effort?: string };
}

interface ThreadView {
  id: string;
  driver?: string;
  workspace?: string;
  providerSessionId?: string;
  leased?: boolean;
  parentId?: string;
  createdAt?: string;
  updatedAt?: string;
}

interface HistoryTurnView {
  turn: number;
  status: string;
  startedAt?: string;
  endedAt?: string;
  prompt?: string;
  events?: unknown[];
  rewoundTo?: number;
}

const enc = encodeURIComponent;

/** The server's list routes answer at most this many rows per request; without `limit`, its stores' default. */
export const MAX_LIST_LIMIT = 1000;
/** What the lists ask for when `--limit` is not given (the stores' own default, asked explicitly). */
export const DEFAULT_LIST_LIMIT = 100;

/**
 * A list that filled its limit may have left older rows out: say so on stderr, for a person
 * (stdout keeps the table or the JSON alone; `--json` callers compare the length themselves).
 */
function noteWhenCut(flags: RemoteFlags, what: "session" | "thread", shown: number, limit: number): void {
  if (flags.json || shown < limit) return;
  const more = limit < MAX_LIST_LIMIT ? `--limit N shows up to ${MAX_LIST_LIMIT}` : `the server lists at most ${MAX_LIST_LIMIT}`;
  process.stderr.write(`showing the newest ${shown} ${what}${shown === 1 ? "" : "s"}; there may be more (${more})\n`);
}

/** Adds `--url`, `--token-env`, `--state-dir` and `--json` to a client command. */
export function remoteOptions(command: Command): Command {
  return command
    .option("--url <url>", `the server (default: ${DEFAULT_URL})`)
    .option("--token-env <name>", "environment variable holding the server's token (default: AGENT_ADAPTOR_TOKEN, then the token file in --state-dir)")
    .option("--state-dir <dir>", "the server's state directory, whose token file is read (default: ~/.agent-adaptor)")
    .option("--json", "print the server's JSON answer");
}

function print(flags: RemoteFlags, json: unknown, human: () => string): ExitCode {
  process.stdout.write(flags.json ? `${JSON.stringify(json, null, 2)}\n` : `${human()}\n`);
  return EXIT.ok;
}

const colors = () => colorsFor(process.stdout);

function money(usd: number | undefined): string {
  return usd === undefined ? "-" : `$${usd.toFixed(4)}`;
}

function gateText(gate: SessionView["gate"]): string {
  if (!gate) return "-";
  return gate.open ? "open" : `${gate.by ?? "closed"}${gate.reason ? `: ${gate.reason}` : ""}`;
}

function stateText(view: SessionView): string {
  const c = colors();
  if (view.state === "running") return c.green(view.state);
  if (view.state === "archived") return c.dim(view.state);
  return view.state;
}

export async function listSessions(flags: RemoteFlags & { state?: string; limit?: number }): Promise<ExitCode> {
  const client = await ApiClient.from(flags);
  const limit = flags.limit ?? DEFAULT_LIST_LIMIT;
  const query = new URLSearchParams();
  if (flags.state) query.set("state", flags.state);
  query.set("limit", String(limit));
  const body = await client.json<{ sessions: SessionView[] }>("GET", `/sessions?${query}`);
  const code = print(flags, body, () => {
    if (body.sessions.length === 0) return "no sessions";
    return renderTable(
      ["id", "agent", "state", "gate", "queued", "cost", "tokens", "updated"],
      body.sessions.map((s) => [
        s.id,
        s.agent ?? "-",
        stateText(s),
        gateText(s.gate),
        String(s.queued?.length ?? 0),
        money(s.guardrails?.spentUsd),
        String(s.guardrails?.spentTokens ?? "-"),
        s.updatedAt ?? "-",
      ]),
      colors(),
    );
  });
  noteWhenCut(flags, "session", body.sessions.length, limit);
  return code;
}

export function sessionFields(view: SessionView): [string, string][] {
  return [
    ["id", view.id],
    ["agent", view.agent ?? "-"],
    ["state", stateText(view)],
    ["gate", gateText(view.gate)],
    ["running", view.inFlight ? view.inFlight.runId : "-"],
    ["queued", view.queued?.length ? view.queued.join(", ") : "-"],
    ["cost", money(view.guardrails?.spentUsd)],
    ["tokens", String(view.guardrails?.spentTokens ?? "-")],
    ["budget", view.guardrails?.tripped ? `tripped (${view.guardrails.tripped.ceiling ?? "?"})` : "ok"],
    ["model", view.settings?.model ?? "(agent default)"],
    ["thread", view.threadId ?? "-"],
    ["last event", String(view.lastSeq ?? "-")],
    ["created", view.createdAt ?? "-"],
    ["updated", view.updatedAt ?? "-"],
  ];
}

export async function showSession(id: string, flags: RemoteFlags): Promise<ExitCode> {
  const view = await (await ApiClient.from(flags)).json<SessionView>("GET", `/sessions/${enc(id)}`);
  return print(flags, view, () => renderFields(sessionFields(view), colors()));
}

export async function createSession(agent: string, flags: RemoteFlags & { id?: string; model?: string; effort?: string }): Promise<ExitCode> {
  const body: Record<string, string> = { agent };
  if (flags.id) body.id = flags.id;
  if (flags.model) body.model = flags.model;
  if (flags.effort) body.effort = flags.effort;
  const view = await (await ApiClient.from(flags)).json<SessionView>("POST", "/sessions", body);
  return print(flags, view, () => view.id);
}

export async function submitToSession(id: string, text: string, flags: RemoteFlags): Promise<ExitCode> {
  const body = await (await ApiClient.from(flags)).json<{ promptId: string }>("POST", `/sessions/${enc(id)}/submit`, { text });
  return print(flags, body, () => `queued ${body.promptId}`);
}

export async function interruptSession(id: string, flags: RemoteFlags): Promise<ExitCode> {
  const body = await (await ApiClient.from(flags)).json<{ wasRunning: boolean }>("POST", `/sessions/${enc(id)}/interrupt`);
  return print(flags, body, () => (body.wasRunning ? "interrupted the running turn" : "nothing was running"));
}

export async function archiveSession(id: string, flags: RemoteFlags): Promise<ExitCode> {
  const view = await (await ApiClient.from(flags)).json<SessionView>("POST", `/sessions/${enc(id)}/archive`);
  return print(flags, view, () => `archived ${view.id}`);
}

/** A session's spend against its ceilings, and which ceiling is tripped. */
function budgetFields(view: SessionView): [string, string][] {
  const g = view.guardrails ?? {};
  const ceiling = (value: number | undefined, unit: (n: number) => string) => (value === undefined ? "none" : unit(value));
  const usd = (n: number) => money(n);
  const tokens = (n: number) => String(n);
  return [
    ["id", view.id],
    ["spent", `${money(g.spentUsd)}, ${g.spentTokens ?? "-"} tokens`],
    ["session ceiling", `${ceiling(g.budget?.sessionUsd, usd)}, ${ceiling(g.budget?.sessionTokens, tokens)} tokens`],
    ["run ceiling", `${ceiling(g.budget?.runUsd, usd)}, ${ceiling(g.budget?.runTokens, tokens)} tokens`],
    ["tripped", g.tripped ? (g.tripped.ceiling ?? "?") : "no"],
  ];
}

export async function raiseBudget(id: string, flags: RemoteFlags & { usd?: number; tokens?: number }): Promise<ExitCode> {
  if (flags.usd === undefined && flags.tokens === undefined) throw new CliError(USAGE_INVALID, "give --usd, --tokens or both (how much to raise the session's ceilings by)", EXIT.usage);
  const body = { ...(flags.usd !== undefined ? { usd: flags.usd } : {}), ...(flags.tokens !== undefined ? { tokens: flags.tokens } : {}) };
  const view = await (await ApiClient.from(flags)).json<SessionView>("POST", `/sessions/${enc(id)}/budget`, body);
  return print(flags, view, () => renderFields(budgetFields(view), colors()));
}

export async function resetRunCeiling(id: string, flags: RemoteFlags): Promise<ExitCode> {
  const view = await (await ApiClient.from(flags)).json<SessionView>("POST", `/sessions/${enc(id)}/reset-run-ceiling`);
  return print(flags, view, () => renderFields(budgetFields(view), colors()));
}

function threadFields(view: ThreadView): [string, string][] {
  return [
    ["id", view.id],
    ["driver", view.driver ?? "-"],
    ["workspace", view.workspace ?? "-"],
    ["provider session", view.providerSessionId ?? "-"],
    ["leased", view.leased ? "yes (a live session holds it)" : "no"],
    ["forked from", view.parentId ?? "-"],
    ["created", view.createdAt ?? "-"],
    ["updated", view.updatedAt ?? "-"],
  ];
}

export async function listThreads(flags: RemoteFlags & { agent?: string; limit?: number }): Promise<ExitCode> {
  const limit = flags.limit ?? DEFAULT_LIST_LIMIT;
  const query = new URLSearchParams();
  if (flags.agent) query.set("agent", flags.agent);
  query.set("limit", String(limit));
  const body = await (await ApiClient.from(flags)).json<{ threads: ThreadView[] }>("GET", `/threads?${query}`);
  const code = print(flags, body, () => {
    if (body.threads.length === 0) return "no threads";
    return renderTable(
      ["id", "driver", "leased", "updated"],
      body.threads.map((t) => [t.id, t.driver ?? "-", t.leased ? "yes" : "no", t.updatedAt ?? "-"]),
      colors(),
    );
  });
  noteWhenCut(flags, "thread", body.threads.length, limit);
  return code;
}

export async function showThread(id: string, flags: RemoteFlags): Promise<ExitCode> {
  const view = await (await ApiClient.from(flags)).json<ThreadView>("GET", `/threads/${enc(id)}`);
  return print(flags, view, () => renderFields(threadFields(view), colors()));
}

export async function threadHistory(id: string, flags: RemoteFlags & { limit?: number; before?: number }): Promise<ExitCode> {
  const query = new URLSearchParams();
  if (flags.limit !== undefined) query.set("limit", String(flags.limit));
  if (flags.before !== undefined) query.set("before", String(flags.before));
  const page = await (await ApiClient.from(flags)).json<{ turns: HistoryTurnView[]; nextBefore?: number }>(
    "GET",
    `/threads/${enc(id)}/history${query.size ? `?${query}` : ""}`,
  );
  return print(flags, page, () => {
    if (page.turns.length === 0) return "no turns";
    const table = renderTable(
      ["turn", "status", "ended", "events", "prompt"],
      page.turns.map((t) => [
        String(t.turn),
        t.rewoundTo !== undefined ? `rewound to ${t.rewoundTo}` : t.status,
        t.endedAt ?? "-",
        String(t.events?.length ?? 0),
        clip(t.prompt ?? "", 60),
      ]),
      colors(),
    );
    return page.nextBefore !== undefined ? `${table}\nolder turns: --before ${page.nextBefore}` : table;
  });
}

export async function deleteThread(id: string, flags: RemoteFlags): Promise<ExitCode> {
  await (await ApiClient.from(flags)).json<undefined>("DELETE", `/threads/${enc(id)}`);
  return print(flags, { deleted: id }, () => `deleted ${id}`);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The flags of a client command without its own options. */
export type RemoteCommandFlags = RemoteFlags;
