/**
 * The error and notice codes only the Pi driver raises: the rows of the shared code tables
 * (`ERROR_CODES`, `NOTICE_CODES`) that name "pi" in `drivers`. A new code of this driver is a
 * row there, so `AdaptorError.code` stays one closed union.
 */
import type { ErrorCodeOf, SharedErrorCode } from "../../errors/index.js";
import type { NoticeCodeOf, SharedNoticeCode } from "../../events/notice-codes.js";

/** Error codes of the Pi driver beyond the shared ones. */
export type PiErrorCode = ErrorCodeOf<"pi">;

/** Notice codes of the Pi driver beyond the shared ones. */
export type PiNoticeCode = NoticeCodeOf<"pi">;

/** Every error code this driver may raise. */
export type PiDriverErrorCode = SharedErrorCode | PiErrorCode;

/** Every notice code this driver may emit. */
export type PiDriverNoticeCode = SharedNoticeCode | PiNoticeCode;
