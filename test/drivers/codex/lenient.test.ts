/**
 * The lenient lens over the generated Codex types: reading a field the protocol does not have
 * fails to compile (the `@ts-expect-error` lines below are checked by the typecheck), while a
 * malformed frame reads as `undefined`s instead of throwing.
 */
import { describe, expect, it } from "vitest";
import { mapAuth, mapConfiguration, mapModel, mapQuota, mapSkills } from "../../../src/drivers/codex/inspect.js";
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

describe("codex inspection mappers over malformed answers", () => {
  it("keep what is well-formed and drop mistyped fields instead of throwing", () => {
    expect(mapModel({ model: "gpt-x", displayName: 7, supportedReasoningEfforts: [{ reasoningEffort: "low" }, null, "high"], inputModalities: ["text", 3] })).toEqual({
      id: "gpt-x",
      efforts: [{ id: "low" }],
      inputModalities: ["text"],
    });
    expect(mapModel({ model: 42 })).toBeUndefined();
    expect(mapQuota({ rateLimitsByLimitId: { codex: { primary: { usedPercent: "12" }, secondary: { usedPercent: 40, windowDurationMins: 300 } }, broken: 5 } })).toEqual({
      windows: [{ name: "codex primary" }, { name: "codex secondary", usedPercent: 40, windowMinutes: 300 }],
    });
    expect(mapQuota({ rateLimits: { limitId: "solo", primary: { usedPercent: 5 } }, rateLimitsByLimitId: null })).toEqual({ windows: [{ name: "solo primary", usedPercent: 5 }] });
    expect(mapAuth({ account: { type: "chatgpt", email: 9, planType: "plus" } })).toMatchObject({ status: "observed", value: { signedIn: true, method: "chatgpt", plan: "plus" } });
    expect(mapAuth({ account: "apiKey", requiresOpenaiAuth: true })).toEqual({ signedIn: false, required: true });
    expect(mapSkills({ data: [{ skills: [{ name: "lint", scope: "repo", enabled: "yes" }, { scope: "user" }] }, 3] })).toEqual({ skills: [{ name: "lint", source: "repo" }] });
    expect(mapConfiguration({ config: { model: "m", profile: "fast", profiles: { fast: { model: "f", features: { web: true, bad: "on" } } } } })).toEqual({
      configuration: { model: "m" },
      profile: { name: "fast", model: "f", features: { web: true } },
    });
  });
});
