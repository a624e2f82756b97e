/**
 * `session/request_permission` answered through core's approval callback. The agent offers
 * options by kind (their ids differ per agent); the host selects one by id, or decides in canonical
 * terms and the answer is the offered option of the matching kind. ACP has no field for a denial's
 * message: the agent learns only which option was chosen. A cancel answers every request still waiting
 * `cancelled` (seed rule: before `session/cancel` is sent).
 */
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ApprovalRequest } from "../../driver/vocabulary.js";
import type { RunRequest } from "../../driver/types.js";
import type { ApprovalDecision, ApprovalOption } from "../../events/types.js";
import type { Emit } from "./events.js";
import { openEach, openOrEmpty, readFrame, str, type Lenient } from "../../driver/lens.js";

/** Canonical option kinds from ACP permission option kinds. */
export function approvalOptions(offered: readonly Lenient<PermissionOption>[]): ApprovalOption[] {
  const out: ApprovalOption[] = [];
  for (const o of offered) {
    const id = str(o.optionId);
    if (id === undefined) continue;
    const kind = o.kind === "allow_once" ? "allow_once" : o.kind === "allow_always" ? "allow_always" : o.kind === "reject_once" || o.kind === "reject_always" ? "deny" : "other";
    out.push({ id, label: str(o.name) ?? id, kind });
  }
  return out;
}

/**
 * The optionId answering `decision`: the offered option the host selected by id (e.g. the agent's
 * `allow_always`), else the one whose kind matches (ids differ per agent).
 */
export function chooseOption(decision: ApprovalDecision, offered: readonly Lenient<PermissionOption>[]): string | undefined {
  if (decision.optionId !== undefined && offered.some((o) => str(o.optionId) === decision.optionId)) return decision.optionId;
  const byKind = (kind: PermissionOption["kind"]) => str(offered.find((o) => o.kind === kind)?.optionId);
  if (decision.decision === "deny") return byKind("reject_once") ?? byKind("reject_always");
  if (decision.scope === "session") return byKind("allow_always") ?? byKind("allow_once");
  return byKind("allow_once") ?? byKind("allow_always");
}

/** The canonical approval kind of an ACP tool kind. */
export function approvalKind(kind: unknown): ApprovalRequest["kind"] {
  if (kind === "execute") return "command";
  if (kind === "edit" || kind === "delete" || kind === "move") return "file_change";
  return "tool";
}

/** What answering a permission request needs from the run. */
export interface PermissionHost {
  approve: RunRequest["approve"];
  /** Announces the tool call the request is about (if not yet seen) and returns its id. */
  ensureTool(toolCall: Lenient<ToolCallUpdate>): Promise<string | undefined>;
  /** Resolves when every event emitted so far has reached the sink. */
  drained(): Promise<void>;
  emit: Emit;
  aborted(): boolean;
  /** A request was answered (the idle clock restarts from here). */
  touched(): void;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

/** The permission requests of one run. */
export class PermissionDesk {
  readonly #host: PermissionHost;
  #cancelling = false;
  #asked = 0;
  #waiting = 0;
  /** Resolvers of requests still waiting for the host: a cancel answers them at once. */
  readonly #cancellers = new Set<() => void>();
  /** The host's decisions still outstanding (settled, never rejected). */
  readonly #decisions = new Set<Promise<void>>();

  constructor(host: PermissionHost) {
    this.#host = host;
  }

  /** Requests waiting for the host (the idle watchdog does not run meanwhile). */
  get waiting(): number {
    return this.#waiting;
  }

  /** Answers every waiting request `cancelled`, and every later one too. */
  cancelAll(): void {
    this.#cancelling = true;
    for (const cancel of [...this.#cancellers]) cancel();
    this.#cancellers.clear();
  }

  /** Resolves when every decision the host was asked for has settled, or after `ms`. */
  async settled(ms: number): Promise<void> {
    await Promise.race([Promise.all(this.#decisions), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }

  /** Answers one `session/request_permission`. */
  async answer(params: unknown): Promise<RequestPermissionResponse> {
    if (this.#cancelling || this.#host.aborted()) return CANCELLED;
    this.#waiting++;
    try {
      const request = readFrame<RequestPermissionRequest>(params) ?? {};
      const toolCall = openOrEmpty(request.toolCall);
      const offered = openEach(request.options);
      const callId = await this.#host.ensureTool(toolCall);
      await this.#host.drained();
      const approval: ApprovalRequest = {
        requestId: `acp_permission_${++this.#asked}`,
        kind: approvalKind(toolCall.kind),
        summary: str(toolCall.title) ?? "the agent asks for permission",
        options: approvalOptions(offered),
      };
      if (callId !== undefined) approval.callId = callId;
      if (toolCall.rawInput !== undefined) approval.input = toolCall.rawInput;
      const decision = await this.#decide(approval);
      if (decision === "cancelled" || this.#cancelling) return CANCELLED;
      const optionId = chooseOption(decision, offered);
      if (optionId === undefined) {
        await this.#host.emit({ type: "notice", level: "warning", code: "approval_option_missing", message: "the agent offered no option matching the decision; the request was answered cancelled" });
        return CANCELLED;
      }
      return { outcome: { outcome: "selected", optionId } };
    } finally {
      this.#waiting--;
      this.#host.touched();
    }
  }

  /** The host's decision, or `cancelled` when a cancel comes first. */
  async #decide(approval: ApprovalRequest): Promise<ApprovalDecision | "cancelled"> {
    // A cancel that came while the request was being announced: the host is not asked at all.
    if (this.#cancelling) return "cancelled";
    let cancel!: () => void;
    const cancelled = new Promise<"cancelled">((resolve) => {
      cancel = () => resolve("cancelled");
    });
    this.#cancellers.add(cancel);
    const decided = this.#host.approve(approval);
    const settled = decided.then(
      () => undefined,
      () => undefined,
    );
    this.#decisions.add(settled);
    void settled.then(() => this.#decisions.delete(settled));
    try {
      return await Promise.race([decided, cancelled]);
    } finally {
      this.#cancellers.delete(cancel);
    }
  }
}
