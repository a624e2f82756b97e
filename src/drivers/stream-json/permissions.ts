/**
 * Requests the CLI sends to the host during a turn. `can_use_tool` becomes an approval through
 * `request.approve()` (the host's handler or, without one, the policy, which never allows), and
 * is answered in the dialect's shape. `can_use_tool` for AskUserQuestion becomes one question per
 * asked question through `request.ask()`; the batch is answered once all answers are in, and one
 * declined question declines the batch. Decisions are awaited off the read loop, so a pending
 * approval never stops the driver from reading (or interrupting).
 */
import type { ApprovalRequest, UserInputAnswer } from "../../driver/vocabulary.js";
import type { RunRequest } from "../../driver/types.js";
import type { ApprovalDecision, ApprovalOption, Question } from "../../events/types.js";
import type { StreamJsonDialect } from "./dialect.js";
import type { StreamJsonProcess } from "./process.js";
import { QUESTION_TOOL, approvalKind, effectiveTool, toolTitle } from "./tools.js";
import type { TurnMapper } from "./turn.js";
import { isObject, str, type CanUseToolRequest, type Json } from "./wire.js";

/** Longest wait for the tool call's assistant message before answering anyway. */
const ANSWER_WAIT_MS = 5_000;

/** The option that applies the CLI's own `permission_suggestions` (its "always allow"). */
export const ALWAYS_ALLOW = "allow_always";

/**
 * The CLI's choices for one `can_use_tool`: allow once, deny, and — when the CLI suggests permission
 * updates (a rule such as `Bash(npm test:*)`, a mode) — allow and apply them for the session.
 */
export function permissionOptions(ask: Pick<CanUseToolRequest, "permission_suggestions">, appliesSuggestions: boolean): ApprovalOption[] {
  const options: ApprovalOption[] = [{ id: "allow", label: "Allow", kind: "allow_once" }];
  const remember = appliesSuggestions ? suggestionLabels(ask.permission_suggestions) : [];
  if (remember.length > 0) options.push({ id: ALWAYS_ALLOW, label: `Allow and remember for this session: ${remember.join("; ")}`, kind: "allow_always" });
  options.push({ id: "deny", label: "Deny", kind: "deny" });
  return options;
}

/** One readable line per suggested permission update. */
function suggestionLabels(suggestions: unknown): string[] {
  if (!Array.isArray(suggestions)) return [];
  return suggestions.filter(isObject).map((s) => {
    const rules = Array.isArray(s.rules) ? s.rules.filter(isObject).map((r) => (str(r.ruleContent) ? `${str(r.toolName)}(${str(r.ruleContent)})` : (str(r.toolName) ?? "?"))) : [];
    if (rules.length > 0) return `${str(s.behavior) ?? "allow"} ${rules.join(", ")}`;
    if (str(s.mode)) return `mode ${str(s.mode)}`;
    if (Array.isArray(s.directories)) return `directories ${s.directories.filter((d) => typeof d === "string").join(", ")}`;
    return str(s.type) ?? "a permission update";
  });
}

/**
 * The decision with the option it selects: the host's `optionId`, else the offered option matching
 * `decision` and `scope` (a session-scoped allow takes "always allow" where the CLI offers it).
 */
export function withOption(decision: ApprovalDecision, offered: readonly ApprovalOption[]): ApprovalDecision {
  if (decision.optionId !== undefined) return decision;
  if (decision.decision === "deny") return { ...decision, optionId: "deny" };
  const always = decision.scope === "session" && offered.some((o) => o.id === ALWAYS_ALLOW);
  return { ...decision, optionId: always ? ALWAYS_ALLOW : "allow" };
}

export interface BrokerContext {
  dialect: StreamJsonDialect;
  process: StreamJsonProcess;
  request: Pick<RunRequest, "approve" | "ask">;
  mapper: TurnMapper;
  redact: (text: string) => string;
}

export class PermissionBroker {
  readonly #ctx: BrokerContext;
  readonly #withdrawn = new Set<string>();
  readonly #inflight = new Set<Promise<void>>();
  #closed = false;

  constructor(context: BrokerContext) {
    this.#ctx = context;
  }

  /** Decisions still being made. */
  get pending(): number {
    return this.#inflight.size;
  }

  /**
   * Takes one CLI `control_request`. Resolves once the request is registered (and, where the
   * dialect asks before showing the tool call, once the tool has been started); the decision is
   * made and answered in the background.
   */
  async receive(line: Json): Promise<void> {
    const requestId = str(line.request_id);
    const request = isObject(line.request) ? line.request : undefined;
    if (requestId === undefined || request === undefined) return;
    if (request.subtype !== "can_use_tool") {
      await this.#ctx.process.respondError(requestId, `unsupported request subtype: ${String(request.subtype)}`);
      return;
    }
    const ask = request as unknown as CanUseToolRequest;
    const input = isObject(ask.input) ? ask.input : {};
    if (this.#ctx.dialect.permissionBeforeToolUse && ask.tool_use_id !== undefined && ask.tool_name !== QUESTION_TOOL) {
      await this.#ctx.mapper.startToolFromPermission(ask.tool_use_id, ask.tool_name, input);
    }
    const work = (ask.tool_name === QUESTION_TOOL ? this.#question(requestId, ask, input) : this.#approval(requestId, ask, input)).catch(
      () => undefined,
    );
    this.#inflight.add(work);
    void work.finally(() => this.#inflight.delete(work));
  }

  /** The CLI withdrew `requestId` (after an interrupt): its answer is no longer sent. */
  withdraw(requestId: string | undefined): void {
    if (requestId !== undefined) this.#withdrawn.add(requestId);
  }

  /** Stops answering: the turn is over. */
  close(): void {
    this.#closed = true;
  }

  async #approval(requestId: string, ask: CanUseToolRequest, input: Json): Promise<void> {
    // The tool the call runs (CodeBuddy's DeferExecuteTool runs an MCP tool); `input` stays as the CLI sent it.
    const name = effectiveTool(ask.tool_name, input).name;
    const approval: ApprovalRequest = {
      requestId,
      kind: approvalKind(name),
      summary: this.#ctx.redact(summaryOf(ask, input, this.#ctx.redact)),
      options: permissionOptions(ask, this.#ctx.dialect.appliesPermissionSuggestions === true),
      input,
    };
    if (ask.tool_use_id !== undefined) approval.callId = ask.tool_use_id;
    let decision: ApprovalDecision;
    try {
      decision = await this.#ctx.request.approve(approval);
    } catch {
      decision = { decision: "deny", message: "the approval could not be decided" };
    }
    if (this.#closed || this.#withdrawn.has(requestId)) return;
    decision = withOption(decision, approval.options);
    // Core reports the decision (approval.resolved, and a notice when the policy denied it).
    if (decision.decision === "deny") this.#ctx.mapper.markDenied(ask.tool_use_id);
    const updated = decision.decision === "allow" && isObject(decision.updatedInput) ? decision.updatedInput : input;
    await this.#answer(requestId, this.#ctx.dialect.permissionAnswer(decision, ask, updated), ask.tool_use_id);
  }

  async #question(requestId: string, ask: CanUseToolRequest, input: Json): Promise<void> {
    const asked = Array.isArray(input.questions) ? input.questions.filter(isObject) : [];
    const questions = asked.map((q, index): Question => {
      const question: Question = { id: `q${index + 1}`, question: str(q.question) ?? "" };
      const header = str(q.header);
      if (header !== undefined) question.header = header;
      if (Array.isArray(q.options)) {
        question.options = q.options.filter(isObject).map((o) => {
          const option: { label: string; description?: string } = { label: str(o.label) ?? "" };
          const description = str(o.description);
          if (description !== undefined) option.description = description;
          return option;
        });
      }
      question.multiSelect = q.multiSelect === true;
      // The CLI always lets the user type an answer of their own ("Other") besides the options.
      question.allowOther = true;
      return question;
    });
    const deny = (message: string) => this.#ctx.dialect.permissionAnswer({ decision: "deny", message }, ask);
    if (questions.length === 0) {
      await this.#answer(requestId, deny("the question carried no questions"), ask.tool_use_id);
      return;
    }
    // One question.requested per question; the first declined one settles the batch.
    const answers = await new Promise<(string | string[])[] | undefined>((resolve) => {
      const values: (string | string[] | undefined)[] = questions.map(() => undefined);
      let remaining = questions.length;
      questions.forEach((question, index) => {
        this.#ctx.request
          .ask({ requestId: `${requestId}#${index + 1}`, questions: [question] })
          .then((answer: UserInputAnswer) => {
            const value = "declined" in answer ? undefined : (answer.answers[question.id] ?? Object.values(answer.answers)[0]);
            if (value === undefined) return resolve(undefined);
            values[index] = value;
            if (--remaining === 0) resolve(values as (string | string[])[]);
          })
          .catch(() => resolve(undefined));
      });
    });
    if (this.#closed || this.#withdrawn.has(requestId)) return;
    if (answers === undefined) {
      await this.#answer(requestId, deny("the user declined to answer"), ask.tool_use_id);
      return;
    }
    const byText: Record<string, string> = {};
    questions.forEach((q, i) => {
      const value = answers[i]!;
      byText[q.question] = Array.isArray(value) ? value.join(", ") : value;
    });
    await this.#answer(requestId, this.#ctx.dialect.permissionAnswer({ decision: "allow" }, ask, { ...input, answers: byText }), ask.tool_use_id);
  }

  async #answer(requestId: string, payload: Json, toolUseId: string | undefined): Promise<void> {
    if (this.#closed || this.#withdrawn.has(requestId)) return;
    // CodeBuddy asks before it has finished the model response holding the call; an answer that
    // arrives before that response is processed can wedge its run loop (observed with a denial).
    if (this.#ctx.dialect.permissionBeforeToolUse && toolUseId !== undefined) {
      await this.#ctx.mapper.toolUseSeen(toolUseId, ANSWER_WAIT_MS);
      if (this.#closed || this.#withdrawn.has(requestId)) return;
    }
    await this.#ctx.process.respond(requestId, payload);
  }
}

/** "Tool: detail", plus the CLI's own wording of the request when it says more. */
function summaryOf(ask: CanUseToolRequest, input: Json, redact: (text: string) => string): string {
  const target = effectiveTool(ask.tool_name, input);
  const title = toolTitle(target.name, target.input, redact);
  const said = ask.description ?? ask.title;
  return said && !title.includes(said) ? `${title} (${said})` : title;
}
