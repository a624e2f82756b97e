/**
 * The error and notice codes only the Codex driver raises: the rows of the shared code tables
 * (`ERROR_CODES`, `NOTICE_CODES`) that name "codex" in `drivers`. A new code of this driver is a
 * row there, so `AdaptorError.code` stays one closed union.
 */
import type { ErrorCodeOf, SharedErrorCode } from "../../errors/index.js";
import type { NoticeCodeOf, SharedNoticeCode } from "../../events/notice-codes.js";

/** Error codes of the Codex driver beyond the shared ones. */
export type CodexErrorCode = ErrorCodeOf<"codex">;

/** Notice codes of the Codex driver beyond the shared ones. */
export type CodexNoticeCode = NoticeCodeOf<"codex">;

/** Every error code this driver may raise. */
export type CodexDriverErrorCode = SharedErrorCode | CodexErrorCode;

/** Every notice code this driver may emit. */
export type CodexDriverNoticeCode = SharedNoticeCode | CodexNoticeCode;
