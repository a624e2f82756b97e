/**
 * The offline demo agent the server runs when it has no configuration: the scripted model server
 * on 127.0.0.1 (started with the server, closed with it) and the in-process `openai()` driver
 * pointed at it, in a workspace under the state directory. Each prompt makes the model ask to run
 * one shell command (so an approval can be tried) and then answer in markdown. No account, no
 * network.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Driver } from "../driver/types.js";
import { openai } from "../drivers/openai/index.js";
import { startModelServer, type ModelScript } from "../testing/model-server/index.js";

export const DEMO_FILE = "hello.txt";

/**
 * Order-free, so any number of sessions can interleave and an interrupted or denied turn leaves
 * nothing out of step: rules answer each request on its own, no scripted turn is consumed. A
 * request called back after the tool ran gets the markdown answer; any other (a new prompt, also
 * one after an interrupted call, whose result precedes the prompt) gets one shell tool call. The
 * call ids are the model server's defaults, unique per request. A catch-all rule also means no
 * request is ever refused, so no refusal can carry a prompt's text into a run's failure.
 */
function demoScript(): ModelScript {
  return {
    turns: [],
    auxiliary: {
      rules: [
        {
          label: "answer once the command ran",
          match: { endsWithToolResult: true },
          reply: {
            text: `## Done\n\nI ran one command in the workspace:\n\n\`\`\`sh\nprintf '…' > ${DEMO_FILE}\n\`\`\`\n\n* it wrote **${DEMO_FILE}** (if you allowed it)\n* this answer comes from the *scripted model server* — no account, no network`,
            chunkSize: 12,
            usage: { input_tokens: 160, output_tokens: 40 },
          },
        },
        {
          label: "ask to run one command",
          match: {},
          reply: {
            reasoning: "The user wants to see a tool call; one shell command writes a file and shows it.",
            toolCalls: [{ name: "bash", arguments: { command: `printf 'hello from the demo agent\\n' > ${DEMO_FILE} && cat ${DEMO_FILE}` } }],
            usage: { input_tokens: 120, output_tokens: 18 },
          },
        },
      ],
    },
  };
}

export interface DemoAgent {
  driver: Driver;
  workspace: string;
  close(): Promise<void>;
}

/** Start the demo's model server and build its driver; `close()` stops the server. */
export async function startDemoAgent(stateDir: string, name: string, workspaceGiven?: string): Promise<DemoAgent> {
  const workspace = workspaceGiven ?? join(stateDir, "demo", name, "workspace");
  await mkdir(workspace, { recursive: true, mode: 0o700 });
  const server = await startModelServer({ script: demoScript(), host: "127.0.0.1", port: 0, keepRequests: 50 });
  const driver = openai({
    baseURL: `${server.url}/v1`,
    api: "chat",
    model: "scripted-model",
    stateDir: join(stateDir, "demo", name, "openai"),
    maxRetries: 0,
    contextWindow: 128_000,
  });
  return { driver, workspace, close: () => server.close() };
}
