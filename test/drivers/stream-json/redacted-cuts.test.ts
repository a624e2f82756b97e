/**
 * Where the stream-json driver cuts the CLI's text (a tool title, a failed result's message, the
 * stderr line of a CLI that exited), it redacts first: a registered key across the cut leaves no
 * part of itself for core's redaction to miss.
 */
import { describe, expect, it } from "vitest";
import { claudeDialect } from "../../../src/drivers/claude/dialect.js";
import { resultFailure } from "../../../src/drivers/stream-json/failure.js";
import type { Launcher } from "../../../src/drivers/stream-json/launcher.js";
import { complete } from "../../../src/drivers/stream-json/outcome.js";
import type { StreamJsonProcess } from "../../../src/drivers/stream-json/process.js";
import { toolTitle } from "../../../src/drivers/stream-json/tools.js";
import type { TurnMapper } from "../../../src/drivers/stream-json/turn.js";
import type { ResultLine } from "../../../src/drivers/stream-json/wire.js";
import { createRedactor } from "../../../src/redact/redact.js";

/** A key of no recognisable shape: only its registration redacts it. */
const KEY = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";
const redactor = createRedactor({ secrets: [KEY] });
const redact = (text: string) => redactor.redactText(text);

/** `head` characters, then the key and more: a cut at `head + 10` leaves 10 characters of the key. */
const across = (head: number) => `${"y".repeat(head)}${KEY} and more`;

/** What core publishes: the text redacted again, with no part of the key left. */
function expectNoKeyPart(text: string): void {
  const published = redactor.redactText(text);
  expect(published).toContain("yyyy");
  expect(published).not.toContain(KEY.slice(0, 8));
}

describe("stream-json cuts after redacting", () => {
  it("a tool title (200 characters)", () => {
    expectNoKeyPart(toolTitle("Bash", { command: across(189) }, redact));
  });

  it("a failed result's message (2,000 characters)", () => {
    const result = { type: "result", subtype: "error_during_execution", is_error: true, errors: [across(1989)] } as unknown as ResultLine;
    expectNoKeyPart(resultFailure(claudeDialect, result, undefined, redact).message);
  });

  it("the last stderr line of a CLI that exited before its result (300 characters)", async () => {
    const launcher = { dialect: claudeDialect, redactor } as unknown as Launcher;
    const proc = { ended: Promise.resolve({ code: 1, signal: null }), stderrTail: () => `starting\n${across(289)}` } as unknown as StreamJsonProcess;
    const mapper = { result: undefined } as unknown as TurnMapper;
    const error = await complete(launcher, proc, mapper, { emit: () => undefined }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "provider_exited" });
    expectNoKeyPart((error as Error).message);
  });
});
