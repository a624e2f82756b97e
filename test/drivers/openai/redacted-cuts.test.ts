/**
 * Where the openai driver cuts text it did not write (a failed request's message, a tool title
 * from the model's arguments), it redacts first: a registered key across the cut leaves no part
 * of itself for core's redaction to miss.
 */
import { describe, expect, it } from "vitest";
import { requestFailure } from "../../../src/drivers/openai/failures.js";
import { bashTool } from "../../../src/drivers/openai/tools/bash.js";
import { grepTool } from "../../../src/drivers/openai/tools/grep.js";
import { createRedactor } from "../../../src/redact/redact.js";

/** A key of no recognisable shape: only its registration redacts it. */
const KEY = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";

describe("requestFailure", () => {
  it("leaves no part of a registered key that crosses the message's cut", () => {
    const redactor = createRedactor({ secrets: [KEY] });
    const cause = Object.assign(new Error(`${"y".repeat(480)} ${KEY} is not valid`), { status: 400 });
    const failure = requestFailure(cause, "after_delivery", "SCENARIO_API_KEY", (text) => redactor.redactText(text));
    // Core redacts the message again before it is published; a cut key is no longer recognised.
    const published = redactor.redactText(failure.message);
    expect(published).toContain("yyyy");
    expect(published.endsWith("…")).toBe(true);
    expect(published).not.toContain(KEY.slice(0, 8));
  });

  it("leaves no part of a registered key that crosses a tool title's cut", () => {
    const redactor = createRedactor({ secrets: [KEY] });
    const redact = (text: string) => redactor.redactText(text);
    const titles = [bashTool().title({ command: `echo ${"y".repeat(109)}${KEY}` }, redact), grepTool().title({ pattern: `${"y".repeat(69)}${KEY}` }, redact)];
    for (const title of titles) {
      const published = redactor.redactText(title);
      expect(published).toContain("yyyy");
      expect(published).not.toContain(KEY.slice(0, 8));
    }
  });
});
