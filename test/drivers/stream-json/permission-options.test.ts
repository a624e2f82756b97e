/**
 * `can_use_tool` options: allow, deny, and "always allow" only when the CLI suggests permission
 * updates; a session-scoped allow takes it where offered (issue #15 item 4). ACP answers the option
 * a host selected by id.
 */
import { describe, expect, it } from "vitest";
import { permissionOptions, withOption } from "../../../src/drivers/stream-json/permissions.js";
import { chooseOption } from "../../../src/drivers/acp/permissions.js";

const SUGGESTION = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test:*" }], behavior: "allow", destination: "localSettings" };

describe("stream-json permission options", () => {
  it("offers always-allow only with suggestions, labelled by what it remembers", () => {
    expect(permissionOptions({}, true).map((o) => o.id)).toEqual(["allow", "deny"]);
    // A dialect that cannot apply the suggestions never offers what it would not do.
    expect(permissionOptions({ permission_suggestions: [SUGGESTION] }, false).map((o) => o.id)).toEqual(["allow", "deny"]);
    expect(permissionOptions({ permission_suggestions: [SUGGESTION] }, true)).toEqual([
      { id: "allow", label: "Allow", kind: "allow_once" },
      { id: "allow_always", label: "Allow and remember for this session: allow Bash(npm test:*)", kind: "allow_always" },
      { id: "deny", label: "Deny", kind: "deny" },
    ]);
  });

  it("selects the option the decision names, else by decision and scope", () => {
    const offered = permissionOptions({ permission_suggestions: [SUGGESTION] }, true);
    expect(withOption({ decision: "allow", scope: "session" }, offered).optionId).toBe("allow_always");
    expect(withOption({ decision: "allow", scope: "session" }, permissionOptions({}, true)).optionId).toBe("allow");
    expect(withOption({ decision: "allow" }, offered).optionId).toBe("allow");
    expect(withOption({ decision: "deny", message: "m" }, offered)).toEqual({ decision: "deny", message: "m", optionId: "deny" });
  });
});

describe("acp option choice", () => {
  const offered = [
    { optionId: "allow", name: "Allow", kind: "allow_once" },
    { optionId: "always", name: "Always", kind: "allow_always" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ] as unknown as Parameters<typeof chooseOption>[1];
  it("answers the selected option by id, and by kind without one", () => {
    expect(chooseOption({ decision: "allow", scope: "session", optionId: "always" }, offered)).toBe("always");
    expect(chooseOption({ decision: "allow", optionId: "allow" }, offered)).toBe("allow");
    expect(chooseOption({ decision: "allow", scope: "session" }, offered)).toBe("always");
    expect(chooseOption({ decision: "deny" }, offered)).toBe("reject");
  });
});
