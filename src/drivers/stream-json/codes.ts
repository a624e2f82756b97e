/**
 * The error and notice codes only the stream-json family (claude, codebuddy) raises: the rows of the shared code tables
 * (`ERROR_CODES`, `NOTICE_CODES`) that name "stream-json" in `drivers`. A new code of this driver is a
 * row there, so `AdaptorError.code` stays one closed union.
 */
import type { ErrorCodeOf, SharedErrorCode } from "../../errors/index.js";
import type { NoticeCodeOf, SharedNoticeCode } from "../../events/notice-codes.js";

/** Error codes of the stream-json family (claude, codebuddy) beyond the shared ones. */
export type StreamJsonErrorCode = ErrorCodeOf<"stream-json">;

/** Notice codes of the stream-json family (claude, codebuddy) beyond the shared ones. */
export type StreamJsonNoticeCode = NoticeCodeOf<"stream-json">;

/** Every error code this driver may raise. */
export type StreamJsonDriverErrorCode = SharedErrorCode | StreamJsonErrorCode;

/** Every notice code this driver may emit. */
export type StreamJsonDriverNoticeCode = SharedNoticeCode | StreamJsonNoticeCode;
