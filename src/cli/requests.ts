/**
 * `sessions pending` and `sessions answer`: what a session's run waits for, and the answer to a
 * question it asked. Answers come from `--answer ID=VALUE` (scripts), or — with none given and a
 * person at the terminal — from a prompt per question; without either the command refuses rather
 * than wait.
 */
import { Writable } from "node:stream";
import { createInterface } from "node:readline/promises";
import select from "@inquirer/select";
import type { Question } from "../events/types.js";
import type { PendingApproval, PendingQuestion } from "../server/public-types.js";
import { promptAbandoned } from "./approvals.js";
import { ApiClient, type RemoteFlags } from "./client.js";
import { CliError, EXIT, USAGE_INVALID, type ExitCode } from "./exit.js";
import { renderTable } from "./table.js";
import { colorsFor, interactive } from "./terminal.js";

/** `GET /sessions/:id/pending`; its questions are the `question.requested` event's, which the server's schema types loosely. */
interface PendingView {
  approvals: PendingApproval[];
  questions: (Omit<PendingQuestion, "questions"> & { questions: Question[] })[];
}

export interface AnswerFlags extends RemoteFlags {
  /** `ID=VALUE`, repeatable; an id given again adds a value (a multi-select question's). */
  answer?: string[];
  decline?: boolean;
}

type Answers = Record<string, string | string[]>;

const enc = encodeURIComponent;

function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function questionText(q: Question): string {
  const choices = q.options?.length ? ` [${q.options.map((o) => o.label).join(" | ")}${q.allowOther ? " | …" : ""}]` : "";
  return `${q.id}: ${oneLine(q.question, 60)}${choices}`;
}

export async function listPending(id: string, flags: RemoteFlags): Promise<ExitCode> {
  const pending = await (await ApiClient.from(flags)).json<PendingView>("GET", `/sessions/${enc(id)}/pending`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(pending, null, 2)}\n`);
    return EXIT.ok;
  }
  const rows = [
    ...pending.approvals.map((a) => ["approval", a.requestId, `${a.kind}: ${oneLine(a.summary)}`]),
    ...pending.questions.flatMap((q) => q.questions.map((question, i) => [i === 0 ? "question" : "", i === 0 ? q.requestId : "", questionText(question)])),
  ];
  process.stdout.write(`${rows.length === 0 ? "nothing is waiting for an answer" : renderTable(["waits for", "request", "what"], rows, colorsFor(process.stdout))}\n`);
  return EXIT.ok;
}

/** `--answer` values by question id; an id given twice collects its values in a list. */
export function parseAnswers(values: readonly string[]): Answers {
  const answers: Answers = {};
  for (const value of values) {
    const cut = value.indexOf("=");
    if (cut <= 0) throw new CliError(USAGE_INVALID, `--answer takes ID=VALUE (the question's id, then its answer); got "${oneLine(value, 40)}"`, EXIT.usage);
    const key = value.slice(0, cut);
    const text = value.slice(cut + 1);
    const earlier = answers[key];
    answers[key] = earlier === undefined ? text : [...(Array.isArray(earlier) ? earlier : [earlier]), text];
  }
  return answers;
}

/** The question request to answer: the one named, else the only one waiting. */
function chooseRequest(pending: PendingView, requestId: string | undefined): PendingView["questions"][number] {
  if (requestId !== undefined) {
    const named = pending.questions.find((q) => q.requestId === requestId);
    if (!named) throw new CliError("request_not_pending", `no question ${requestId} is waiting for an answer`, EXIT.failed);
    return named;
  }
  if (pending.questions.length === 0) throw new CliError("request_not_pending", "no question is waiting for an answer", EXIT.failed);
  if (pending.questions.length > 1) {
    const ids = pending.questions.map((q) => q.requestId).join(", ");
    throw new CliError(USAGE_INVALID, `several questions are waiting (${ids}): name one`, EXIT.usage);
  }
  return pending.questions[0]!;
}

export async function answerQuestion(id: string, requestId: string | undefined, flags: AnswerFlags, signal: AbortSignal): Promise<ExitCode> {
  const given = flags.answer ?? [];
  if (flags.decline && given.length > 0) throw new CliError(USAGE_INVALID, "--decline takes no --answer", EXIT.usage);
  const answers = parseAnswers(given);
  const client = await ApiClient.from(flags);
  const path = `/sessions/${enc(id)}`;
  const request = chooseRequest(await client.json<PendingView>("GET", `${path}/pending`), requestId);
  let body: { decline: true } | { answers: Answers };
  if (flags.decline) body = { decline: true };
  else if (given.length > 0) body = { answers };
  else if (!flags.json && interactive()) body = { answers: await promptAnswers(request.questions, signal) };
  else throw new CliError(USAGE_INVALID, "give --answer ID=VALUE for each question, or --decline (no terminal to ask)", EXIT.usage);
  const answered = await client.json<{ ok: true }>("POST", `${path}/questions/${enc(request.requestId)}`, body);
  process.stdout.write(flags.json ? `${JSON.stringify(answered, null, 2)}\n` : `${"decline" in body ? "declined" : "answered"} ${request.requestId}\n`);
  return EXIT.ok;
}

/** One prompt per question, on stderr; Ctrl-C sends nothing and exits 130. */
async function promptAnswers(questions: readonly Question[], signal: AbortSignal): Promise<Answers> {
  const answers: Answers = {};
  try {
    for (const q of questions) answers[q.id] = await promptOne(q, signal);
  } catch (error) {
    if (promptAbandoned(error) || signal.aborted) throw new CliError("cancelled", "nothing was sent", EXIT.cancelled);
    throw error;
  }
  return answers;
}

const OTHER = "\u0000other";

async function promptOne(q: Question, signal: AbortSignal): Promise<string | string[]> {
  const message = `${q.header ? `${oneLine(q.header, 40)}: ` : ""}${oneLine(q.question, 200)}`;
  const options = q.options ?? [];
  if (options.length > 0 && !q.multiSelect) {
    const choices = options.map((o) => ({ name: o.label, value: o.label, ...(o.description ? { description: o.description } : {}) }));
    if (q.allowOther) choices.push({ name: "Other (type an answer)", value: OTHER });
    const chosen = await select({ message, choices }, { output: process.stderr, signal, clearPromptOnDone: true });
    if (chosen !== OTHER) {
      process.stderr.write(`${message}: ${chosen}\n`);
      return chosen;
    }
    return readLine(`${message} (your answer):`, signal, q.secret === true);
  }
  if (options.length > 0) {
    // A multi-select question: the options by number or label, separated by commas.
    const listed = options.map((o, i) => `  ${i + 1}. ${o.label}`).join("\n");
    const line = await readLine(`${message}\n${listed}\nChoose one or more (numbers or labels, comma-separated):`, signal, false);
    return line
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "")
      .map((part) => (/^\d+$/.test(part) && options[Number(part) - 1] ? options[Number(part) - 1]!.label : part));
  }
  return readLine(`${message}:`, signal, q.secret === true);
}

/** A line typed at the terminal; a secret one is not echoed. Ctrl-C rejects like a select prompt's. */
async function readLine(message: string, signal: AbortSignal, secret: boolean): Promise<string> {
  // readline redraws its prompt line: a prompt written beside it would be wiped, so it is the
  // question's prompt, except for a secret, whose muted output would swallow it.
  if (secret) process.stderr.write(`${message} `);
  const output = secret ? new Writable({ write: (_chunk, _encoding, done) => done() }) : process.stderr;
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  rl.on("SIGINT", onAbort);
  try {
    return await rl.question(secret ? "" : `${message} `, { signal: abort.signal });
  } catch (error) {
    if (abort.signal.aborted) throw Object.assign(new Error("the prompt was abandoned"), { name: "AbortPromptError" });
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    rl.close();
    if (secret) process.stderr.write("\n");
  }
}
