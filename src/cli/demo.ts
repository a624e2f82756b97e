/**
 * `agent-adaptor demo`: one real agent turn, offline and without an account. It starts the
 * scripted model server, points the real Codex CLI (from the dev dependencies) at it in an
 * isolated home, and runs one turn through the public API in which the model asks for a shell
 * command that writes a file in a temporary workspace. It prints the canonical events and the
 * result, and checks that the file really exists.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createAgent } from "../agent/agent.js";
import { codex } from "../drivers/codex/index.js";
import { ConfigError } from "../errors/index.js";
import { realCliAvailability } from "../testing/real-cli/availability.js";
import { realCliSpec } from "../testing/real-cli/registry.js";
import { SCRIPTED_KEY_ENV } from "../testing/real-cli/settings.js";
import { withRealCli } from "../testing/real-cli/with-real-cli.js";
import { describeEvent } from "./format.js";

const FILE = "hello.txt";
const CONTENT = "written by a real agent turn";

const script = {
  turns: [
    {
      match: { lastUserTextContains: FILE },
      reply: {
        reasoning: "The user wants a file; one shell command writes it.",
        toolCalls: [{ id: "call_demo", name: "exec_command", arguments: { cmd: `printf '${CONTENT}' > ${FILE} && echo done` } }],
        usage: { input_tokens: 120, output_tokens: 18 },
      },
    },
    {
      match: { toolResultFor: "call_demo" },
      reply: { text: `I wrote ${FILE} in the workspace.`, chunkSize: 6, usage: { input_tokens: 160, output_tokens: 9 } },
    },
  ],
};

/** `json`: every event, then the outcome, as one JSON line each; the notes for a person are left out. */
export async function demoCommand(out: (line: string) => void, signal: AbortSignal, options: { json?: boolean } = {}): Promise<number> {
  const note = options.json ? () => undefined : out;
  const availability = realCliAvailability("codex");
  if (!availability.available) {
    throw new ConfigError(
      `the demo runs the Codex CLI, which is not usable here (${availability.reason}); install it with \`npm install --save-dev ${realCliSpec("codex").packageName}\` and run the demo again`,
    );
  }
  note(`codex: ${availability.version}; model: the scripted model server on 127.0.0.1 (no account, no network)`);
  return withRealCli("codex", script, async (ctx) => {
    note(`model server: ${ctx.server.url}`);
    const driver = codex({
      home: ctx.configDir,
      env: ctx.env,
      provider: {
        id: "scripted_demo",
        baseUrl: `${ctx.server.url}/v1`,
        wireApi: "responses",
        apiKeyEnv: SCRIPTED_KEY_ENV,
        requestMaxRetries: 0,
        streamMaxRetries: 0,
      },
      args: ["--disable", "plugins"],
    });
    await using agent = createAgent(driver, {
      workspace: ctx.workspace,
      defaults: { model: ctx.model, policy: { sandbox: "workspace-write", approval: "never" } },
    });
    const prompt = `Please create ${FILE} containing a greeting.`;
    note(`prompt: ${prompt}\n`);
    const stream = agent.stream(prompt, { signal });
    for await (const event of stream) {
      if (options.json) {
        out(JSON.stringify(event));
        continue;
      }
      // The answer is printed once, as the result below.
      if (event.type === "message.delta" || event.type === "reasoning.delta" || event.type === "message.completed") continue;
      out(describeEvent(event));
    }
    const result = await stream.result;
    const written = await readFile(join(ctx.workspace, FILE), "utf8");
    const requests = ctx.server.requests.filter((r) => !r.auxiliary).length;
    if (options.json) {
      out(JSON.stringify({ result: result.text, usage: result.usage ?? {}, file: { name: FILE, content: written }, modelRequests: requests }));
      return written === CONTENT ? 0 : 1;
    }
    out(`\nresult: ${result.text}`);
    out(`usage: ${JSON.stringify(result.usage ?? {})}`);
    out(`${FILE} on disk: ${JSON.stringify(written)}`);
    out(`model requests served: ${requests}`);
    return written === CONTENT ? 0 : 1;
  });
}
