/**
 * Run one prompt, stream its canonical events, then inspect the provider.
 * Uses the scripted fake driver so it runs anywhere; swap in a real driver
 * (e.g. `codex()` from "agent-adaptor/drivers/codex") for real work.
 *
 * Node 20 runs JavaScript, so compile first (in a project that installed agent-adaptor, your own
 * tsc setup does the same):
 *
 *   npm run build && npx tsc -p examples && node dist-examples/quickstart.js
 */
import { createAgent, RunFailedError } from "agent-adaptor";
import { fakeDriver } from "agent-adaptor/testing";

await using agent = createAgent(fakeDriver(), { workspace: process.cwd() });

const stream = agent.stream("Say hello", { signal: AbortSignal.timeout(60_000) });
for await (const event of stream) {
  console.log(event.seq, event.type);
}
try {
  const result = await stream.result;
  console.log("result:", result.text, result.usage ?? "(no usage reported)");
} catch (error) {
  if (error instanceof RunFailedError) console.error(error.code, error.phase, error.partial.text);
  else throw error;
}

const inspection = await agent.inspect();
for (const [panel, observation] of Object.entries(inspection)) {
  if (panel !== "driver") console.log(panel, (observation as { status: string }).status);
}
