/**
 * The error and notice codes only the ACP driver raises: the rows of the shared code tables
 * (`ERROR_CODES`, `NOTICE_CODES`) that name "acp" in `drivers`. A new code of this driver is a
 * row there, so `AdaptorError.code` stays one closed union.
 */
import type { ErrorCodeOf, SharedErrorCode } from "../../errors/index.js";
import type { NoticeCodeOf, SharedNoticeCode } from "../../events/notice-codes.js";

/** Error codes of the ACP driver beyond the shared ones. */
export type AcpErrorCode = ErrorCodeOf<"acp">;

/** Notice codes of the ACP driver beyond the shared ones. */
export type AcpNoticeCode = NoticeCodeOf<"acp">;

/** Every error code this driver may raise. */
export type AcpDriverErrorCode = SharedErrorCode | AcpErrorCode;

/** Every notice code this driver may emit. */
export type AcpDriverNoticeCode = SharedNoticeCode | AcpNoticeCode;
