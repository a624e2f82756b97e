/**
 * The lens the ACP driver reads payloads through: field names come from the SDK's schema types,
 * so a misspelt field fails `tsc --noEmit` (the `@ts-expect-error` lines below are the check: if a
 * misspelt read compiled, the directive would be unused and fail the type check), while malformed
 * values are tolerated at run time.
 */
import type { InitializeResponse, RequestPermissionRequest, SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, expectTypeOf, it } from "vitest";
import { at, each, within, wire, type Wire } from "../../../src/drivers/acp/wire.js";

describe("the ACP wire lens", () => {
  it("reads only schema field names, at every depth", () => {
    const init = wire<InitializeResponse>({ agentCapabilities: { promptCapabilities: { image: true } } })!;
    const prompt = within(within(init, "agentCapabilities"), "promptCapabilities");
    expect(prompt.image).toBe(true);
    // @ts-expect-error misspelt field of PromptCapabilities
    void prompt.imge;
    // @ts-expect-error misspelt field of InitializeResponse
    void init.agentCapability;
    // @ts-expect-error misspelt key passed to within()
    within(init, "agentCapabilites");

    const notification = wire<SessionNotification>({ update: { sessionUpdate: "plan", entries: [{ content: "a" }, 3] } })!;
    const update = within(notification, "update");
    expectTypeOf(update).toEqualTypeOf<Wire<SessionUpdate>>();
    const entries = each(update, "entries");
    expect(entries).toEqual([{ content: "a" }]);
    // @ts-expect-error misspelt field of PlanEntry
    void entries[0]?.contents;
    // @ts-expect-error misspelt field of a SessionUpdate variant
    void update.toolCallID;

    const permission = wire<RequestPermissionRequest>({ toolCall: { toolCallId: "t" }, options: [] })!;
    expect(within(permission, "toolCall").toolCallId).toBe("t");
    // @ts-expect-error misspelt field of ToolCallUpdate
    void within(permission, "toolCall").rawInputs;
  });

  it("tolerates values of the wrong type: they read as missing, never as a throw", () => {
    expect(wire<InitializeResponse>("not an object")).toBeUndefined();
    expect(wire<InitializeResponse>([1, 2])).toBeUndefined();
    const init = wire<InitializeResponse>({ agentCapabilities: "yes", authMethods: { id: "x" } })!;
    expect(at(init, "agentCapabilities")).toBeUndefined();
    expect(within(init, "agentCapabilities")).toEqual({});
    expect(each(init, "authMethods")).toEqual([]);
  });
});
