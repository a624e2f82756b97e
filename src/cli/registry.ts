/**
 * Drivers the command line can construct by name. Each driver module registers itself here;
 * the CLI never hard-codes a provider.
 */
import type { Driver } from "../driver/types.js";
import { ConfigError } from "../errors/index.js";
import type { ApprovalRequest } from "../driver/vocabulary.js";
import { codexAcp, copilot, cursor, gemini, qwen } from "../drivers/acp/index.js";
import { claude } from "../drivers/claude/index.js";
import { codebuddy } from "../drivers/codebuddy/index.js";
import { codex } from "../drivers/codex/index.js";
import { pi } from "../drivers/pi/index.js";
import { fakeDriver } from "../testing/fake-driver/driver.js";
import type { FakeRunScript } from "../testing/fake-driver/script.js";

/** Settings a person can give on the command line; each driver maps what it understands. */
export interface CliDriverSettings {
  model?: string;
  executable?: string;
}

export type CliDriverFactory = (settings: CliDriverSettings) => Driver;

const factories = new Map<string, { factory: CliDriverFactory; description: string }>();

export function registerCliDriver(name: string, description: string, factory: CliDriverFactory): void {
  factories.set(name, { factory, description });
}

export function cliDriverNames(): string[] {
  return [...factories.keys()].sort();
}

export function cliDriverDescription(name: string): string | undefined {
  return factories.get(name)?.description;
}

export function createCliDriver(name: string, settings: CliDriverSettings): Driver | undefined {
  return factories.get(name)?.factory(settings);
}

/** The driver `--driver` names (else `AGENT_ADAPTOR_DRIVER`, else codex); unknown names are a usage error. */
export function driverFor(name: string | undefined, settings: CliDriverSettings): Driver {
  const names = cliDriverNames();
  const chosen = name ?? process.env.AGENT_ADAPTOR_DRIVER ?? (names.includes("codex") ? "codex" : undefined);
  if (!chosen) throw new ConfigError(`choose a driver with --driver (available: ${names.join(", ")})`);
  const driver = createCliDriver(chosen, settings);
  if (!driver) throw new ConfigError(`unknown driver "${chosen}" (available: ${names.join(", ")})`);
  return driver;
}

/** The driver settings among a command's flags. */
export function settingsFrom(flags: { model?: string; executable?: string }): CliDriverSettings {
  const settings: CliDriverSettings = {};
  if (flags.model) settings.model = flags.model;
  if (flags.executable) settings.executable = flags.executable;
  return settings;
}


/**
 * The `fake` driver's scripts, chosen by the prompt's first word: `fail` fails, `approve` asks
 * to run a command first (the decision shows as a `fake_approval` notice), `hang` runs a command
 * until cancelled, anything else answers.
 * A testing driver, for trying the CLI and for its tests; no provider is involved.
 */
const FAKE_APPROVAL = {
  requestId: "approval_1",
  kind: "command",
  callId: "call_1",
  summary: "touch hello.txt",
  options: [
    { id: "yes", label: "Yes, run it", kind: "allow_once" },
    { id: "always", label: "Yes, and do not ask again for touch", kind: "allow_always" },
    { id: "no", label: "No, tell the agent what to do instead", kind: "deny" },
  ],
} as const satisfies ApprovalRequest;

function fakeScript(prompt: string): FakeRunScript {
  if (prompt.startsWith("hang")) {
    // A command that runs until the run is cancelled: progress stays on screen (Ctrl-C ends it).
    return {
      steps: [
        { markDelivered: true },
        { emit: { type: "tool.started", callId: "call_1", kind: "command", title: "sleep 600", command: "sleep 600" } },
        { waitForAbort: true },
      ],
    };
  }
  if (prompt.startsWith("fail")) {
    return { steps: [{ markDelivered: true }, { fail: { code: "provider_error", message: "the fake provider was asked to fail" } }] };
  }
  const answer: FakeRunScript["steps"] = [
    { emit: { type: "message.delta", itemId: "msg_1", text: "Hello from " } },
    { emit: { type: "message.delta", itemId: "msg_1", text: "the fake driver." } },
    { emit: { type: "message.completed", itemId: "msg_1", text: "Hello from the fake driver." } },
    { emit: { type: "usage.observed", usage: { input_tokens: 5, output_tokens: 6 } } },
  ];
  const approval: FakeRunScript["steps"] = prompt.startsWith("approve")
    ? [{ approve: { ...FAKE_APPROVAL, options: [...FAKE_APPROVAL.options] } }]
    : [];
  return { steps: [{ markDelivered: true }, ...approval, ...answer], usage: { input_tokens: 5, output_tokens: 6 } };
}

registerCliDriver(
  "fake",
  'scripted in-process fake provider for trying the CLI: a prompt starting with "fail" fails, "approve" asks an approval first, "hang" runs until Ctrl-C',
  () => fakeDriver({ script: fakeScript }),
);

registerCliDriver("codex", "OpenAI Codex through codex app-server (your normal Codex home and login)", (settings) =>
  codex({
    ...(settings.executable ? { executable: settings.executable } : {}),
    ...(settings.model ? { model: settings.model } : {}),
  }),
);

registerCliDriver("claude", "Claude Code through its headless stream-json control protocol", (settings) =>
  claude({
    ...(settings.executable ? { executable: settings.executable } : {}),
    ...(settings.model ? { model: settings.model } : {}),
  }),
);

registerCliDriver("codebuddy", "CodeBuddy Code through its stream-json control protocol", (settings) =>
  codebuddy({
    ...(settings.executable ? { executable: settings.executable } : {}),
    ...(settings.model ? { model: settings.model } : {}),
  }),
);

const ACP_PRESETS = { gemini, qwen, copilot, "codex-acp": codexAcp, cursor } as const;
for (const [name, preset] of Object.entries(ACP_PRESETS)) {
  registerCliDriver(name, `${name} over the Agent Client Protocol`, (settings) =>
    preset(settings.executable ? { executable: settings.executable } : {}),
  );
}

registerCliDriver("pi", "Pi through pi --mode rpc (your normal Pi agent directory and models)", (settings) =>
  pi(settings.executable ? { executable: settings.executable } : {}),
);
