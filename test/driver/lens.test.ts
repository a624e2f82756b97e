/**
 * The lenient lens every driver reads its wire types through: reading a field the protocol does
 * not have fails to compile (the `@ts-expect-error` lines below are checked by the typecheck: if a
 * misspelt read compiled, the directive would be unused and fail it), while a malformed frame
 * reads as `undefined`s instead of throwing. Checked over both generated type sets the built-in
 * drivers use: the Codex protocol and the ACP SDK schema.
 */
import type { InitializeResponse, RequestPermissionRequest, SessionConfigOption, SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  bool,
  claim,
  entries,
  list,
  num,
  open,
  openAnyVariant,
  openEach,
  openOrEmpty,
  readFrame,
  str,
  type AnyVariant,
  type Lenient,
} from "../../src/driver/lens.js";
import type { ItemStartedNotification } from "../../src/drivers/codex/protocol/v2/ItemStartedNotification.js";
import type { ErrorNotification } from "../../src/drivers/codex/protocol/v2/ErrorNotification.js";
import type { GetAccountRateLimitsResponse } from "../../src/drivers/codex/protocol/v2/GetAccountRateLimitsResponse.js";
import type { ToolRequestUserInputParams } from "../../src/drivers/codex/protocol/v2/ToolRequestUserInputParams.js";

describe("the lens over the Codex protocol types", () => {
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

describe("the lens over the ACP SDK schema", () => {
  it("reads only schema field names, at every depth", () => {
    const init = readFrame<InitializeResponse>({ agentCapabilities: { promptCapabilities: { image: true } } })!;
    const prompt = openOrEmpty(openOrEmpty(init.agentCapabilities).promptCapabilities);
    expect(bool(prompt.image)).toBe(true);
    // @ts-expect-error misspelt field of PromptCapabilities
    void prompt.imge;
    // @ts-expect-error misspelt field of InitializeResponse
    void init.agentCapability;

    const notification = readFrame<SessionNotification>({ update: { sessionUpdate: "plan", entries: [{ content: "a" }, 3] } })!;
    const update = open(notification.update)!;
    expectTypeOf(update).toEqualTypeOf<Lenient<SessionUpdate>>();
    // @ts-expect-error a field of one variant is not readable before the tag is checked
    void update.entries;
    expect(update.sessionUpdate === "plan" ? openEach(update.entries) : undefined).toEqual([{ content: "a" }]);
    if (update.sessionUpdate === "plan") {
      // @ts-expect-error misspelt field of PlanEntry
      void openEach(update.entries)[0]?.contents;
    }
    if (update.sessionUpdate === "tool_call_update") {
      // @ts-expect-error misspelt field of a SessionUpdate variant
      void update.toolCallID;
    }

    const permission = readFrame<RequestPermissionRequest>({ toolCall: { toolCallId: "t" }, options: [] })!;
    expect(str(openOrEmpty(permission.toolCall).toolCallId)).toBe("t");
    // @ts-expect-error misspelt field of ToolCallUpdate
    void openOrEmpty(permission.toolCall).rawInputs;
  });

  it("reads every variant's fields of a union before its tag is checked, through AnyVariant", () => {
    // A config option's values are flat options or groups of options; the tag may be missing.
    const option = readFrame<AnyVariant<SessionConfigOption>>({ id: "model", options: [{ value: "a" }, { group: "g", options: [{ value: "b" }] }] })!;
    const values = list(option.options).flatMap((element) => {
      const entry = openAnyVariant(element);
      return [str(entry?.value), ...openEach(entry?.options).map((inner) => str(inner.value))];
    });
    expect(values).toEqual(["a", undefined, "b"]);
    // @ts-expect-error a field no variant has
    void option.optoins;
    // @ts-expect-error a field no variant of the option list entries has
    void openAnyVariant(list(option.options)[0])?.label;

    const update = openAnyVariant(claim<SessionUpdate>({ sessionUpdate: "plan", entries: [] }));
    expect(openEach(update?.entries)).toEqual([]);
  });

  it("tolerates values of the wrong type: they read as missing, never as a throw", () => {
    expect(readFrame<InitializeResponse>("not an object")).toBeUndefined();
    expect(readFrame<InitializeResponse>([1, 2])).toBeUndefined();
    const init = readFrame<InitializeResponse>({ agentCapabilities: "yes", authMethods: { id: "x" } })!;
    expect(open(init.agentCapabilities)).toBeUndefined();
    expect(openOrEmpty(init.agentCapabilities)).toEqual({});
    expect(openEach(init.authMethods)).toEqual([]);
    expect(openEach(claim<{ id: string }[]>([{ id: "a" }, null, "b", [1], { id: 2 }]))).toEqual([{ id: "a" }, { id: 2 }]);
  });
});
