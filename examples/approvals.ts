/**
 * Answer a provider's approval request from host code. Without a handler every request is
 * denied (by policy); nothing is ever approved on the host's behalf.
 *
 *   npm run build && npx tsc -p examples && node dist-examples/approvals.js
 */
import { createAgent, type ApprovalHandler } from "agent-adaptor";
import { fakeDriver } from "agent-adaptor/testing";

const onApproval: ApprovalHandler = async (request) =>
  request.kind === "command" && request.summary.startsWith("npm test")
    ? { decision: "allow", scope: "once" }
    : { decision: "deny", message: "only the test command is allowed" };

const driver = fakeDriver({
  script: {
    steps: [
      { approve: { requestId: "r1", kind: "command", summary: "npm test", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] } },
      { emit: { type: "message.completed", itemId: "m1", text: "tests ran" } },
    ],
  },
});

const agent = createAgent(driver, { defaults: { onApproval } });
try {
  const result = await agent.run("Run the tests");
  for (const event of result.transcript()) {
    if (event.type === "approval.resolved") console.log(event.requestId, event.decision.decision, "by", event.by);
  }
} finally {
  await agent.close();
}
