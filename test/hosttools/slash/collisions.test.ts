/**
 * Aliases, the collision policy against the provider's native commands (from the Inspection's
 * `commands` panel), and localization, over a real session on the fake driver.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors/index.js";
import { createAgent } from "../../../src/agent/agent.js";
import { createSlashCommands, DEFAULT_SLASH_MESSAGES, type SlashMessages } from "../../../src/hosttools/slash/index.js";
import { createSession } from "../../../src/session/open.js";
import { fakeDriver } from "../../../src/testing/fake-driver/driver.js";
import { handled, rig, runTurn } from "./helpers.js";

const evidence = [{ transport: "fake", method: "fake/commands", scope: "process" as const, observedAt: new Date().toISOString(), durationMs: 0 }];
/** A provider whose own commands include `/compact` and `/Review` (names compared case-insensitively). */
const NATIVE = { commands: { status: "observed" as const, value: [{ name: "/compact", description: "native compaction" }, { name: "Review" }, { name: "tidy" }], evidence } };

describe("aliases", () => {
  it("reach their command, appear in /help, and are refused at construction when they conflict", async () => {
    await using r = await rig({ slash: { aliases: { status: ["st"], clear: ["reset"] } } });
    const viaAlias = handled(await r.slash.dispatch("/ST"));
    expect(viaAlias).toMatchObject({ ok: true, command: "status" });
    expect(viaAlias.output).toBe(handled(await r.slash.dispatch("/status")).output);
    await runTurn(r.session, "old");
    const before = r.session.status().threadId;
    expect(handled(await r.slash.dispatch("/reset"))).toMatchObject({ ok: true, command: "clear" });
    expect(r.session.status().threadId).not.toBe(before);

    expect(() => createSlashCommands({ session: r.session, agent: r.agent, collisions: "reject", aliases: { help: ["status"] } })).toThrow(ConfigError);
    expect(() => createSlashCommands({ session: r.session, agent: r.agent, collisions: "reject", aliases: { help: ["h"], status: ["H"] } })).toThrow(/given to both \/help and \/status/);
  });
});

describe("collision policy", () => {
  it("native-first: a portable name the provider also has goes to the session as a prompt; aliases still reach the portable command", async () => {
    await using r = await rig({ driver: { inspect: NATIVE }, slash: { collisions: "native-first", aliases: { compact: ["squash"] } } });
    expect(await r.slash.dispatch("/compact")).toEqual({ handled: false, reason: "native" });
    expect(await r.slash.dispatch("/review please")).toEqual({ handled: false, reason: "native" });
    expect(handled(await r.slash.dispatch("/squash"))).toMatchObject({ command: "compact", code: "unsupported" });
    expect(handled(await r.slash.dispatch("/bogus"))).toMatchObject({ ok: false, code: "unknown_command", output: "Unknown command /bogus. /help lists the commands." });
    expect(await r.slash.collisions()).toEqual([{ name: "compact", command: "compact", resolution: "native" }]);
    const help = handled(await r.slash.dispatch("/help")).output;
    expect(help).toContain("/compact — Compact the conversation with the provider's own compaction (also /squash) [the provider's own runs]");
    expect(help).toContain("Provider commands, sent as typed: /compact, /review, /tidy");
    // The host submits what the slash tool hands back: the provider's own /compact runs as a prompt.
    await runTurn(r.session, "/compact");
    expect(r.driver.probe.runs.map((run) => run.prompt)).toEqual(["/compact"]);
    expect(r.driver.probe.calls.inspect).toBe(1);
  });

  it("portable-first: the portable command runs without asking the provider; /help says it replaces the native one", async () => {
    await using r = await rig({ driver: { inspect: NATIVE }, slash: { collisions: "portable-first" } });
    expect(handled(await r.slash.dispatch("/compact"))).toMatchObject({ command: "compact", code: "unsupported" });
    expect(r.driver.probe.calls.inspect).toBe(0);
    expect(await r.slash.dispatch("/tidy")).toEqual({ handled: false, reason: "native" });
    const help = handled(await r.slash.dispatch("/help")).output;
    expect(help).toContain("[replaces the provider's own]");
    expect(help).toContain("Provider commands, sent as typed: /review, /tidy");
    expect(await r.slash.collisions()).toEqual([{ name: "compact", command: "compact", resolution: "portable" }]);
  });

  it("reject: neither runs; the answer names the aliases that still reach the portable command", async () => {
    await using r = await rig({ driver: { inspect: NATIVE }, slash: { collisions: "reject", aliases: { compact: ["squash", "tidy"] } } });
    const out = handled(await r.slash.dispatch("/compact"));
    expect(out).toMatchObject({ ok: false, code: "collision", command: "compact" });
    expect(out.output).toBe("/compact is both a portable command and one of the provider's own; it is refused to avoid running the wrong one. Use /squash for the portable /compact.");
    // An alias that is itself a native command collides the same way.
    expect(handled(await r.slash.dispatch("/tidy"))).toMatchObject({ ok: false, code: "collision" });
    expect(handled(await r.slash.dispatch("/squash"))).toMatchObject({ command: "compact", code: "unsupported" });
    expect(await r.slash.collisions()).toEqual([
      { name: "compact", command: "compact", resolution: "refused" },
      { name: "tidy", command: "compact", resolution: "refused" },
    ]);
    expect(r.driver.probe.calls.run).toBe(0);
  });

  it("without the provider's list, an unknown word goes to the provider and nothing collides; a host-given list replaces inspection", async () => {
    await using r = await rig({ slash: { collisions: "native-first" } });
    expect(await r.slash.dispatch("/bogus")).toEqual({ handled: false, reason: "not_portable" });
    expect(handled(await r.slash.dispatch("/compact"))).toMatchObject({ command: "compact", code: "unsupported" });
    expect(await r.slash.nativeCommands()).toEqual({ known: false, reason: "the fake provider has no such method" });

    const given = createSlashCommands({ session: r.session, agent: r.agent, collisions: "native-first", nativeCommands: [{ name: "compact" }] });
    const inspections = r.driver.probe.calls.inspect;
    expect(await given.dispatch("/compact")).toEqual({ handled: false, reason: "native" });
    expect(await given.nativeCommands()).toEqual({ known: true, source: "host", commands: [{ name: "compact" }] });
    expect(r.driver.probe.calls.inspect).toBe(inspections);
  });

  it("a list the provider advertises inside the session's conversation (ACP agents) is used where inspection cannot know one, and is dropped by /clear", async () => {
    const commands = [{ name: "compact", description: "native compaction" }, { name: "plan", argumentHint: "goal" }];
    const advertised = { type: "notice", level: "info", code: "available_commands", message: "the session offers 2 native commands", commands } as const;
    await using r = await rig({ driver: { script: { steps: [{ emit: advertised }] } }, slash: { collisions: "reject" } });
    expect(await r.slash.nativeCommands()).toEqual({ known: false, reason: "the fake provider has no such method" });
    await runTurn(r.session, "hello");
    expect(r.session.status().nativeCommands).toEqual(commands);
    expect(await r.slash.nativeCommands()).toEqual({ known: true, source: "session", commands: commands });
    expect(handled(await r.slash.dispatch("/compact"))).toMatchObject({ ok: false, code: "collision", command: "compact" });
    expect(await r.slash.collisions()).toEqual([{ name: "compact", command: "compact", resolution: "refused" }]);
    const help = handled(await r.slash.dispatch("/help")).output;
    expect(help).toContain("/compact — Compact the conversation with the provider's own compaction [refused: also the provider's own]");
    expect(help).toContain("Provider commands, sent as typed: /plan");

    // A fresh provider conversation advertises its own list: until it does, the old one is not used.
    expect(handled(await r.slash.dispatch("/clear"))).toMatchObject({ ok: true, command: "clear" });
    expect(r.session.status().nativeCommands).toBeUndefined();
    expect((await r.slash.nativeCommands()).known).toBe(false);
  });

  it("reads the list once and again on refresh; a failed inspection leaves it unknown until the next read", async () => {
    let calls = 0;
    const driver = fakeDriver({
      inspect: () => {
        calls++;
        if (calls === 1) throw new Error("provider down");
        return { ...fullInspection(), commands: NATIVE.commands };
      },
    });
    const agent = createAgent(driver);
    const session = await createSession(agent);
    try {
      const slash = createSlashCommands({ session, agent, collisions: "native-first" });
      expect(await slash.nativeCommands()).toMatchObject({ known: false, reason: expect.stringContaining("provider down") });
      // The failure is not kept: the next line reads again, and the list is then kept.
      expect(await slash.dispatch("/compact")).toEqual({ handled: false, reason: "native" });
      expect(await slash.dispatch("/review")).toEqual({ handled: false, reason: "native" });
      expect(calls).toBe(2);
      expect(await slash.nativeCommands({ refresh: true })).toMatchObject({ known: true });
      expect(calls).toBe(3);
    } finally {
      await session.close();
      await agent.close();
    }
  });
});

describe("localization", () => {
  it("every string comes from the messages table the host overrides; numbers follow the locale", async () => {
    const german: Partial<SlashMessages> = {
      summary: (command) => `Befehl ${command}`,
      unknownCommand: (name) => `Unbekannter Befehl /${name}.`,
      usage: (_command, name, hint) => `Aufruf: /${name} ${hint}`.trim(),
      gate: (gate) => (gate.open ? "offen" : "geschlossen"),
      status: (view) => `Sitzung ${view.sessionId} · ${view.gate} · ${view.spentUsd} · ${view.spentTokens}`,
    };
    await using r = await rig({
      driver: { inspect: NATIVE, script: { steps: [{ markDelivered: true }], text: "ok", usage: { input_tokens: 1000, output_tokens: 234, cost_usd: 1.5 } } },
      slash: { collisions: "native-first", locale: "de-DE", messages: german },
    });
    await runTurn(r.session, "hallo");
    expect(handled(await r.slash.dispatch("/status")).output).toBe(`Sitzung ${r.session.id} · offen · 1,50\u00a0$ · 1.234`);
    expect(handled(await r.slash.dispatch("/nope")).output).toBe("Unbekannter Befehl /nope.");
    expect(handled(await r.slash.dispatch("/resume")).output).toBe("Aufruf: /resume <thread>");
    expect(handled(await r.slash.dispatch("/help")).output).toContain("/status — Befehl status");
    // Untouched keys keep the defaults.
    expect(handled(await r.slash.dispatch("/model")).output).toBe(DEFAULT_SLASH_MESSAGES.settingShown("model", { value: "fake-model", source: "default" }, ["fake-model"]));
  });

  it("refuses an unknown or non-function message key at construction", async () => {
    await using r = await rig();
    expect(() => createSlashCommands({ session: r.session, agent: r.agent, collisions: "reject", messages: { helo: () => "" } as never })).toThrow(/messages.helo is not a slash message/);
    expect(() => createSlashCommands({ session: r.session, agent: r.agent, collisions: "reject", messages: { help: "Hilfe" } as never })).toThrow(/messages.help must be a function/);
    expect(() => createSlashCommands({ session: r.session, agent: r.agent, collisions: "sometimes" as never })).toThrow(/collisions must be one of native-first, portable-first, reject/);
  });
});

function fullInspection() {
  const unsupported = { status: "unsupported" as const, reason: { code: "method_unsupported", message: "none" }, evidence: [] };
  return {
    environment: unsupported,
    models: unsupported,
    commands: unsupported,
    skills: unsupported,
    mcp: unsupported,
    quota: unsupported,
    profile: unsupported,
    configuration: unsupported,
    auth: unsupported,
  };
}
