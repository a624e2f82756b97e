/**
 * The lenient lens over the generated Codex types: reading a field the protocol does not have
 * fails to compile (the `@ts-expect-error` lines below are checked by the typecheck), while a
 * malformed frame reads as `undefined`s instead of throwing.
 */
import { describe, expect, it } from "vitest";
import { entries, list, num, open, readFrame, str } from "../../../src/drivers/codex/lenient.js";
import type { ItemStartedNotification } from "../../../src/drivers/codex/protocol/v2/ItemStartedNotification.js";
import type { ErrorNotification } from "../../../src/drivers/codex/protocol/v2/ErrorNotification.js";
import type { GetAccountRateLimitsResponse } from "../../../src/drivers/codex/protocol/v2/GetAccountRateLimitsResponse.js";
import type { ToolRequestUserInputParams } from "../../../src/drivers/codex/protocol/v2/ToolRequestUserInputParams.js";

describe("codex lenient lens: compile-time field names", () => {
  it("narrows ThreadItem variants by type and reads only their fields", () => {
    const params = readFrame<ItemStartedNotification>({ item: { type: "commandExecution", id: "c1", command: "ls", exitCode: "nope" } });
    const item = open(params?.item);
    let command: string | undefined;
    let exitCode: number | undefined;
    if (item?.type === "commandExecution") {
      command = str(item.command);
      exitCode = num(item.exitCode);
      // @ts-expect-error a misspelt field of the commandExecution variant
      void item.comand;
      // @ts-expect-error the field of another variant (agentMessage) is not readable here
      void item.text;
    }
    // @ts-expect-error a misspelt field of the notification
    void params?.itme;
    // @ts-expect-error an unchecked field cannot be used without a reader
    void params?.threadId?.length;
    expect(command).toBe("ls");
    expect(exitCode).toBeUndefined();
  });

  it("reads nested objects, lists and maps of the claimed types", () => {
    const error = open(readFrame<ErrorNotification>({ error: { message: "boom", codexErrorInfo: null }, willRetry: false })?.error);
    expect(str(error?.message)).toBe("boom");
    // @ts-expect-error TurnError has no field `messsage`
    void error?.messsage;

    const limits = readFrame<GetAccountRateLimitsResponse>({ rateLimitsByLimitId: { codex: { limitName: "Codex", primary: { usedPercent: 12 } } } });
    const [first] = entries(limits?.rateLimitsByLimitId);
    const window = open(open(first?.[1])?.primary);
    expect(first?.[0]).toBe("codex");
    expect(num(window?.usedPercent)).toBe(12);
    // @ts-expect-error RateLimitWindow has no field `percentUsed`
    void window?.percentUsed;

    const questions = list(readFrame<ToolRequestUserInputParams>({ questions: [{ id: "q1", question: "Which?" }, 7] })?.questions);
    expect(questions).toHaveLength(2);
    expect(str(open(questions[0])?.question)).toBe("Which?");
    expect(open(questions[1])).toBeUndefined();
    // @ts-expect-error a question has no field `text`
    void open(questions[0])?.text;
  });

  it("reads a malformed frame as undefined fields, without throwing", () => {
    expect(readFrame<ItemStartedNotification>("not an object")).toBeUndefined();
    expect(readFrame<ItemStartedNotification>([1, 2])).toBeUndefined();
    const params = readFrame<ItemStartedNotification>({ item: 42 });
    expect(open(params?.item)).toBeUndefined();
    expect(list(readFrame<ToolRequestUserInputParams>({ questions: "which?" })?.questions)).toEqual([]);
    expect(entries(readFrame<GetAccountRateLimitsResponse>({ rateLimitsByLimitId: null })?.rateLimitsByLimitId)).toEqual([]);
  });
});
