/**
 * The code tables: every error class's own codes are rows naming that class, the per-driver and
 * shared unions partition the tables, and the guards accept exactly the table's keys.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import * as api from "../../src/index.js";
import {
  AdaptorError,
  AgentClosedError,
  AuthRequiredError,
  ConfigError,
  DriverContractError,
  ERROR_CODES,
  ExecutableNotFoundError,
  FeatureUnsupportedError,
  isErrorCode,
  LeaseLostError,
  ProtocolError,
  ProviderError,
  RunCancelledError,
  StoreError,
  ThreadBusyError,
  ThreadExistsError,
  ThreadIncompatibleError,
  ThreadNotFoundError,
  type ErrorCode,
  type ErrorCodeOf,
  type SharedErrorCode,
  type StoreErrorCode,
  type ProtocolErrorCode,
} from "../../src/errors/index.js";
import { isNoticeCode, NOTICE_CODES, type NoticeCode, type NoticeCodeOf, type SharedNoticeCode } from "../../src/events/notice-codes.js";
import type { EventOf, RunFailure } from "../../src/events/types.js";
import { INPUT_ERROR_CODES, InputError, type InputErrorCode } from "../../src/input/errors.js";
import { JsonRpcError } from "../../src/process/jsonrpc-error.js";
import type { MalformedFrameCode } from "../../src/driver/malformed-frames.js";
import type { CodexErrorCode } from "../../src/drivers/codex/codes.js";
import type { AcpNoticeCode } from "../../src/drivers/acp/codes.js";

describe("ERROR_CODES", () => {
  it("holds each error class's default code under that class", () => {
    const defaults: AdaptorError[] = [
      new ConfigError("m"),
      new AgentClosedError(),
      new DriverContractError("d", "m"),
      new ProviderError("m"),
      new ExecutableNotFoundError("x"),
      new AuthRequiredError(),
      new ProtocolError("m"),
      new RunCancelledError(),
      new ThreadNotFoundError(),
      new ThreadExistsError(),
      new ThreadBusyError(),
      new LeaseLostError(),
      new ThreadIncompatibleError(["workspace"]),
      new FeatureUnsupportedError("fork", "d"),
      new JsonRpcError(-32601, "m"),
      new InputError("input_invalid", "m"),
      new StoreError("store_failed", "m"),
    ];
    for (const error of defaults) expect([error.code, ERROR_CODES[error.code].errorClass]).toEqual([error.code, error.name]);
  });

  it("names a real exported class in every row, with a one-line meaning", () => {
    const exported = new Set(Object.keys(api));
    for (const [code, row] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(row.meaning.length, code).toBeGreaterThan(10);
      expect(row.meaning, code).not.toContain("\n");
      // JsonRpcError is the SPI's (process layer), not the root entry's.
      if (row.errorClass !== "JsonRpcError") expect(exported.has(row.errorClass), `${code}: ${row.errorClass}`).toBe(true);
    }
  });

  it("holds every InputError code under InputError", () => {
    for (const code of INPUT_ERROR_CODES) expect(ERROR_CODES[code].errorClass).toBe("InputError");
  });

  it("types AdaptorError.code, RunFailure.code and each class's codes as closed unions of the table", () => {
    expectTypeOf<AdaptorError["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<RunFailure["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<StoreErrorCode>().toExtend<ErrorCode>();
    expectTypeOf<ProtocolErrorCode>().toExtend<ErrorCode>();
    expectTypeOf<InputErrorCode>().toExtend<ErrorCode>();
    expectTypeOf<"not_a_code">().not.toExtend<ErrorCode>();
  });

  it("splits into shared codes and each driver family's own", () => {
    expectTypeOf<"provider_error">().toExtend<SharedErrorCode>();
    expectTypeOf<"rate_limited">().not.toExtend<SharedErrorCode>();
    expectTypeOf<"rate_limited">().toExtend<CodexErrorCode>();
    expectTypeOf<"phantom_turn">().not.toExtend<CodexErrorCode>();
    expectTypeOf<"phantom_turn">().toExtend<ErrorCodeOf<"acp">>();
    const shared = Object.entries(ERROR_CODES).filter(([, row]) => !("drivers" in row)).map(([code]) => code);
    expect(shared).toContain("provider_error");
    expect(shared).not.toContain("rate_limited");
  });

  it("isErrorCode accepts the table's keys and nothing else", () => {
    for (const code of Object.keys(ERROR_CODES)) expect(isErrorCode(code), code).toBe(true);
    for (const value of ["nope", "", "toString", "__proto__", "constructor", 1, undefined, null]) expect(isErrorCode(value), String(value)).toBe(false);
  });
});

describe("NOTICE_CODES", () => {
  it("types the notice event's code as the table's keys, malformed-frame codes included", () => {
    expectTypeOf<EventOf<"notice">["code"]>().toEqualTypeOf<NoticeCode>();
    expectTypeOf<MalformedFrameCode>().toExtend<SharedNoticeCode>();
    expectTypeOf<"history_replayed">().toExtend<AcpNoticeCode>();
    expectTypeOf<"history_replayed">().not.toExtend<NoticeCodeOf<"codex">>();
    expectTypeOf<"not_a_code">().not.toExtend<NoticeCode>();
  });

  it("has a snake_case code and a one-line meaning in every row; isNoticeCode accepts exactly its keys", () => {
    for (const [code, row] of Object.entries(NOTICE_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(row.meaning.length, code).toBeGreaterThan(10);
      expect(isNoticeCode(code), code).toBe(true);
    }
    for (const value of ["nope", "hasOwnProperty", "__proto__", 0, null]) expect(isNoticeCode(value), String(value)).toBe(false);
  });
});
