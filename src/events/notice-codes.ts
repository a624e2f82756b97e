/**
 * The one table of notice codes. Every `notice` event's `code` is a key of {@link NOTICE_CODES};
 * docs/api.md's notice table is generated from this module (`node scripts/gen-codes-doc.mjs
 * --update`), so it stays plain data with no runtime imports. A code that only some driver
 * families emit names them in `drivers`; each driver types its own as `NoticeCodeOf<"family">`.
 */
import type { DriverFamily } from "../errors/codes.js";

/** One row of {@link NOTICE_CODES}. */
export interface NoticeCodeInfo {
  /** What the notice reports, in one line. */
  readonly meaning: string;
  /** The driver families that emit it; absent when core or any driver may. */
  readonly drivers?: readonly DriverFamily[];
}

/** Every code a `notice` event may carry, with its meaning and owning drivers. */
export const NOTICE_CODES = {
  // --- core and every driver ---------------------------------------------------------------------
  invalid_utf8: { meaning: "a line of provider output is not valid UTF-8 (`count` lines when coalesced)" },
  invalid_json: { meaning: "a line of provider output is not valid JSON (`count` lines when coalesced)" },
  frame_too_large: { meaning: "a line of provider output exceeds the frame size limit (`count` lines when coalesced)" },
  malformed_frame: { meaning: "a line of provider output is JSON but no protocol message (`count` lines when coalesced)" },
  approval_handler_failed: { meaning: "the approval handler threw; the request was denied" },
  approval_denied_by_policy: { meaning: "no approval handler is configured; the request was denied" },
  approval_timeout: { meaning: "no answer came within `approvalTimeoutMs`; the approval was denied (a question declined)" },
  standby_fallback: { meaning: "the prepared process failed before delivery; a fresh one was launched" },
  thread_rewound: { meaning: "a thread went back to an earlier turn (`Thread.rewind`); the later turns left its conversation" },
  provider_retry: { meaning: "the provider retries a failed model request", drivers: ["codex", "pi", "openai"] },
  stop_reason: { meaning: "the turn ended with an unusual stop reason", drivers: ["acp", "pi"] },
  // --- codex -------------------------------------------------------------------------------------
  protocol_error: { meaning: "the app-server stream could not be read past a failure", drivers: ["codex"] },
  unknown_notification: { meaning: "Codex sent a notification this driver does not know", drivers: ["codex"] },
  unknown_server_request: { meaning: "Codex sent a request this driver does not know; it was refused", drivers: ["codex"] },
  mcp_elicitation_declined: { meaning: "an MCP server asked for input; it was declined", drivers: ["codex"] },
  dynamic_tool_refused: { meaning: "Codex called a client tool the driver never declared", drivers: ["codex"] },
  context_compacted: { meaning: "the conversation context was compacted (by Codex, by Claude Code or CodeBuddy, or by the openai driver's context guard)", drivers: ["codex", "stream-json", "openai"] },
  title_generated: { meaning: "the conversation got its title (in the message); a warning when the title request failed", drivers: ["openai"] },
  goal_updated: { meaning: "Codex changed the thread's goal during the turn (its accounting or status); read it with `Thread.goal()`", drivers: ["codex"] },
  goal_cleared: { meaning: "Codex reported the thread's goal cleared (also sent when a thread without a goal is resumed)", drivers: ["codex"] },
  review_started: { meaning: "Codex entered review mode", drivers: ["codex"] },
  review_finished: { meaning: "Codex left review mode", drivers: ["codex"] },
  model_rerouted: { meaning: "Codex rerouted the turn to another model", drivers: ["codex"] },
  codex_warning: { meaning: "Codex reported a warning", drivers: ["codex"] },
  codex_guardian_warning: { meaning: "Codex's guardian reported a warning", drivers: ["codex"] },
  codex_deprecation: { meaning: "Codex reported a deprecation", drivers: ["codex"] },
  codex_config_warning: { meaning: "Codex reported a problem with its configuration", drivers: ["codex"] },
  codex_world_writable_warning: { meaning: "Codex warned about world-writable directories", drivers: ["codex"] },
  // --- acp ---------------------------------------------------------------------------------------
  approval_option_missing: { meaning: "no permission option matched the decision; the request was answered cancelled", drivers: ["acp"] },
  history_replayed: { meaning: "session/load replayed earlier history; it is not part of this run", drivers: ["acp"] },
  load_delayed: { meaning: "session/load waits so the agent does not overwrite a just-created session", drivers: ["acp"] },
  unsupported_request: { meaning: "the agent sent a request the driver does not serve", drivers: ["acp"] },
  invalid_request: { meaning: "the agent sent a request that does not match the protocol schema", drivers: ["acp"] },
  unmapped_notification: { meaning: "the agent sent a notification the driver does not map", drivers: ["acp"] },
  unmapped_update: { meaning: "the agent sent a session update the driver does not map", drivers: ["acp"] },
  unmapped_content: { meaning: "the agent sent a content block that is not part of the text", drivers: ["acp"] },
  unbound_update: { meaning: "the agent sent a session update while no run was active", drivers: ["acp"] },
  update_failed: { meaning: "a session update could not be handled", drivers: ["acp"] },
  malformed_update: { meaning: "a session update lacks a field the protocol requires", drivers: ["acp"] },
  agent_diagnostic: { meaning: "the agent reported a diagnostic in its output", drivers: ["acp"] },
  agent_notice: { meaning: "the agent reported a notice of its own", drivers: ["acp"] },
  available_commands: { meaning: "the session offers native commands", drivers: ["acp"] },
  usage_partial: { meaning: "the agent reported usage with some values missing", drivers: ["acp"] },
  mode_changed: { meaning: "the session mode changed", drivers: ["acp"] },
  idle_timeout: { meaning: "the idle watchdog ended the run", drivers: ["acp"] },
  hard_cap: { meaning: "the hard-cap watchdog ended the run", drivers: ["acp"] },
  repeat_tool_loop: { meaning: "the repeated-tool-call watchdog ended the run", drivers: ["acp"] },
  // --- stream-json (claude, codebuddy) -----------------------------------------------------------
  provider_error_line: { meaning: "the CLI wrote an error line", drivers: ["stream-json"] },
  permission_denied: { meaning: "a tool was denied by the permission mode", drivers: ["stream-json"] },
  api_retry: { meaning: "the CLI retries a failed model request", drivers: ["stream-json"] },
  unknown_message: { meaning: "the CLI sent a message type this driver does not know", drivers: ["stream-json", "pi"] },
  // --- the fake driver (testing) -----------------------------------------------------------------
  fake_approval: { meaning: "the fake driver reports the approval decision it received", drivers: ["fake"] },
  fake_answer: { meaning: "the fake driver reports the answer it received", drivers: ["fake"] },
  fake_notice: { meaning: "a notice a fake driver script emits as one of its steps", drivers: ["fake"] },
} as const satisfies Record<string, NoticeCodeInfo>;

/** Every code a `notice` event may carry. */
export type NoticeCode = keyof typeof NOTICE_CODES;

/** The notice codes core and every driver may emit (rows without `drivers`). */
export type SharedNoticeCode = {
  [C in NoticeCode]: (typeof NOTICE_CODES)[C] extends { readonly drivers: readonly DriverFamily[] } ? never : C;
}[NoticeCode];

/** The notice codes of driver family `F` beyond the shared ones (rows whose `drivers` name `F`). */
export type NoticeCodeOf<F extends DriverFamily> = {
  [C in NoticeCode]: (typeof NOTICE_CODES)[C] extends { readonly drivers: readonly (infer D)[] } ? (F extends D ? C : never) : never;
}[NoticeCode];

/** Whether `value` is a code of the table. */
export function isNoticeCode(value: unknown): value is NoticeCode {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(NOTICE_CODES, value);
}
