/**
 * An agent message the preset knows as a diagnostic becomes a notice cut at 500 characters, after
 * the driver's redaction: a registered key across the cut leaves no part of itself.
 */
import { describe, expect, it } from "vitest";
import { UpdateMapper } from "../../../src/drivers/acp/events.js";
import type { DriverEvent } from "../../../src/events/types.js";
import { createRedactor } from "../../../src/redact/redact.js";

/** A key of no recognisable shape: only its registration redacts it. */
const KEY = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";

describe("an agent diagnostic", () => {
  it("leaves no part of a registered key that crosses its cut", async () => {
    const redactor = createRedactor({ secrets: [KEY] });
    const events: DriverEvent[] = [];
    const m = new UpdateMapper(
      async (event) => {
        events.push(event);
      },
      { id: "acp", name: "ACP", diagnosticText: [/^diagnostic:/] },
      "run_t",
      { redact: (text) => redactor.redactText(text) },
    );
    const text = `diagnostic: ${"y".repeat(478)}${KEY} and more`;
    await m.handle({ sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
    const notice = events.find((event) => event.type === "notice");
    expect(notice).toMatchObject({ code: "agent_diagnostic" });
    // Core redacts the notice again; a cut key is no longer recognised.
    const published = redactor.redactText(JSON.stringify(notice));
    expect(published).toContain("yyyy");
    expect(published).not.toContain(KEY.slice(0, 8));
  });
});
