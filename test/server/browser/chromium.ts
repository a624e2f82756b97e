/**
 * The browser lane's Chromium: Debian's `chromium` driven by playwright-core (never a downloaded
 * browser). Where it is missing the lane is skipped with the reason — except under CI, where a
 * skipped lane would pass silently, so it fails instead.
 */
import { accessSync, constants } from "node:fs";
import { describe, it } from "vitest";
import { chromium, type Browser } from "playwright-core";

/** Where Chromium is looked for: `AGENT_ADAPTOR_CHROMIUM`, else Debian's wrapper script. */
export const CHROMIUM_ENV = "AGENT_ADAPTOR_CHROMIUM";
const DEFAULT_CHROMIUM = "/usr/bin/chromium";

/** Flags for a quiet, offline, throwaway browser in a container. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** Generous per-test timeout: real browser, real processes; nothing is timed. */
export const BROWSER_TEST_TIMEOUT_MS = 120_000;

export type ChromiumAvailability = { available: true; executable: string } | { available: false; reason: string };

export function chromiumAvailability(): ChromiumAvailability {
  const executable = process.env[CHROMIUM_ENV] || DEFAULT_CHROMIUM;
  try {
    accessSync(executable, constants.X_OK);
    return { available: true, executable };
  } catch {
    const hint = process.env[CHROMIUM_ENV] ? `${CHROMIUM_ENV} names no executable` : `install Debian's chromium package or set ${CHROMIUM_ENV}`;
    return { available: false, reason: `no Chromium at ${executable} (${hint})` };
  }
}

/** Whether a missing prerequisite must fail rather than skip (CI runs every lane). */
export function mustRunEveryLane(): boolean {
  return process.env.CI === "true";
}

/** Another prerequisite of a suite; `disabled` means switched off on purpose, so it skips even under CI. */
export type Prerequisite = { available: true } | { available: false; reason: string; disabled?: boolean };

/**
 * `describe` for a browser suite: runs `fn` with the Chromium executable when there is one;
 * otherwise a failing test under CI, or a suite skipped with its reason in the title.
 * `extra` adds another prerequisite (e.g. the real Codex CLI) with the same rule.
 */
export function describeBrowser(title: string, fn: (executable: string) => void, extra?: () => Prerequisite): void {
  const browser = chromiumAvailability();
  const other = extra?.() ?? { available: true as const };
  if (browser.available && other.available) {
    describe(title, { timeout: BROWSER_TEST_TIMEOUT_MS }, () => fn(browser.executable));
    return;
  }
  const reason = !browser.available ? browser.reason : !other.available ? other.reason : "";
  const disabled = browser.available && !other.available && other.disabled === true;
  if (mustRunEveryLane() && !disabled) {
    describe(title, () => {
      it("has its prerequisites (CI=true runs every lane)", () => {
        throw new Error(`the browser lane cannot run: ${reason}`);
      });
    });
    return;
  }
  process.stderr.write(`[browser] ${title}: skipped — ${reason}\n`);
  describe.skip(`${title} (skipped: ${reason})`, () => {
    it(`skipped: ${reason}`, () => {});
  });
}

/** A fresh headless Chromium (its own temporary profile, removed by `close()`). */
export function launchChromium(executable: string): Promise<Browser> {
  return chromium.launch({ executablePath: executable, args: [...CHROMIUM_ARGS], timeout: 60_000 });
}
