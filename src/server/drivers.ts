/**
 * Drivers the server constructs by name from a configuration's `options` object. The object is
 * passed through unchanged, so each driver's own validation refuses a key it does not know (a
 * `ConfigError` at start). `demo` is not here: it needs the scripted model server (demo.ts).
 */
import { z } from "zod";
import type { Driver } from "../driver/types.js";
import { acp, codexAcp, copilot, cursor, gemini, qwen } from "../drivers/acp/index.js";
import { claude } from "../drivers/claude/index.js";
import { codebuddy } from "../drivers/codebuddy/index.js";
import { codex } from "../drivers/codex/index.js";
import { openai } from "../drivers/openai/index.js";
import { pi } from "../drivers/pi/index.js";
import { ConfigError } from "../errors/index.js";
import { fakeDriver } from "../testing/fake-driver/driver.js";
import type { FakeRunScript } from "../testing/fake-driver/script.js";
import type { ServerDriverName } from "./driver-names.js";

type Options = Record<string, unknown>;
type Factory = (options: Options) => Driver;

/*
 * The driver factories take typed configs; the server has a JSON object from a file. Each factory
 * validates its own config at construction, so the cast only moves that check to the driver.
 */
const FACTORIES: Record<Exclude<ServerDriverName, "demo">, Factory> = {
  codex: (options) => codex(options as Parameters<typeof codex>[0]),
  claude: (options) => claude(options as Parameters<typeof claude>[0]),
  codebuddy: (options) => codebuddy(options as Parameters<typeof codebuddy>[0]),
  acp: (options) => acp(options as unknown as Parameters<typeof acp>[0]),
  "codex-acp": (options) => codexAcp(options as Parameters<typeof codexAcp>[0]),
  gemini: (options) => gemini(options as Parameters<typeof gemini>[0]),
  qwen: (options) => qwen(options as Parameters<typeof qwen>[0]),
  cursor: (options) => cursor(options as Parameters<typeof cursor>[0]),
  copilot: (options) => copilot(options as Parameters<typeof copilot>[0]),
  pi: (options) => pi(options as Parameters<typeof pi>[0]),
  openai: (options) => openai(options as unknown as Parameters<typeof openai>[0]),
  fake: (options) => fakeFromOptions(options),
};

/* The fake driver's options as a file can hold them: scripts chosen by the prompt, no functions. */
const scriptSchema = z.looseObject({ steps: z.array(z.record(z.string(), z.unknown())) });
const fakeOptionsSchema = z.strictObject({
  script: scriptSchema.optional(),
  scripts: z.array(z.strictObject({ promptContains: z.string(), script: scriptSchema })).optional(),
  process: z.boolean().optional(),
});

function fakeFromOptions(options: Options): Driver {
  const parsed = fakeOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === "unrecognized_keys" ? `: unknown key ${issue.keys.map((k) => `"${k}"`).join(", ")}` : `: ${issue.message}`;
    throw new ConfigError(`invalid fake driver options at ${issue.path.map(String).join(".") || "(top level)"}${keys}`);
  }
  const { script, scripts = [], process } = parsed.data;
  const chosen = (prompt: string): FakeRunScript | undefined =>
    (scripts.find((entry) => prompt.includes(entry.promptContains))?.script ?? script) as FakeRunScript | undefined;
  const fallback: FakeRunScript = { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "item_1", text: "ok" } }], text: "ok" };
  return fakeDriver({ script: (prompt) => chosen(prompt) ?? fallback, ...(process !== undefined ? { process } : {}) });
}

/** Construct the named driver with `options` (its own validation applies). */
export function createServerDriver(name: Exclude<ServerDriverName, "demo">, options: Options = {}): Driver {
  return FACTORIES[name](options);
}
