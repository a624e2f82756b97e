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

/** Prompts the demo answers before its script runs out (the model server's turns are consumed in order). */
const DEMO_TURNS = 200;
export const DEMO_FILE = "hello.txt";

function demoScript(): ModelScript {
  const turns: ModelScript["turns"] = [];
  for (let i = 1; i <= DEMO_TURNS; i++) {
    const callId = `call_demo_${i}`;
    turns.push(
      {
        reply: {
          reasoning: "The user wants to see a tool call; one shell command writes a file and shows it.",
          toolCalls: [{ id: callId, name: "bash", arguments: { command: `printf 'hello from the demo agent (${i})\\n' > ${DEMO_FILE} && cat ${DEMO_FILE}` } }],
          usage: { input_tokens: 120, output_tokens: 18 },
        },
      },
      {
        match: { toolResultFor: callId },
        reply: {
          text: `## Done\n\nI ran one command in the workspace:\n\n\`\`\`sh\nprintf '…' > ${DEMO_FILE}\n\`\`\`\n\n* it wrote **${DEMO_FILE}** (if you allowed it)\n* this answer comes from the *scripted model server* — no account, no network`,
          chunkSize: 12,
          usage: { input_tokens: 160, output_tokens: 40 },
        },
      },
    );
  }
  return { turns };
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
  const server = await startModelServer({ script: demoScript(), host: "127.0.0.1", port: 0 });
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
