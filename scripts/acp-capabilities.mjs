#!/usr/bin/env node
/**
 * Measures the ACP capability table of docs/drivers/acp.md: for every ACP CLI of the real-CLI
 * lane that is installed, `inspect()` plus one scripted session through the driver's preset,
 * against the scripted model server. Prints the table; with `--write`, replaces the block
 * between the markers in docs/drivers/acp.md.
 *
 * Run after `npm run build`:  node scripts/acp-capabilities.mjs [--write]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { createAgent } = await import(join(root, "dist/agent/agent.js"));
const { gemini, copilot, codexAcp, qwen, claudeAcp } = await import(join(root, "dist/drivers/acp/index.js"));
const { withRealCli, realCliAvailability } = await import(join(root, "dist/testing/real-cli/index.js"));
const { SCRIPTED_KEY_ENV } = await import(join(root, "dist/testing/real-cli/settings.js"));

const base = (ctx) => ctx.server.url.replace(/\/+$/, "");
const presets = {
  gemini: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
  qwen: (ctx) => qwen({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "OPENAI_API_KEY", model: ctx.model }, env: ctx.env }),
  copilot: (ctx) => copilot({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "COPILOT_PROVIDER_API_KEY", model: ctx.model }, env: ctx.env }),
  "codex-acp": (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }),
  "claude-agent-acp": (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }),
};

const yes = (v) => (v ? "yes" : "no");
const rows = [];
for (const [cli, make] of Object.entries(presets)) {
  const availability = realCliAvailability(cli);
  if (!availability.available) {
    rows.push([cli, "—", `not measured: ${availability.reason}`, "", "", "", "", "", ""]);
    continue;
  }
  const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello.", usage: { input_tokens: 11, output_tokens: 3 } } }] };
  const row = await withRealCli(cli, script, async (ctx) => {
    const agent = createAgent(make(ctx), { workspace: ctx.workspace });
    try {
      const inspection = await agent.inspect();
      const env = inspection.environment.value ?? {};
      const caps = env.capabilities ?? {};
      const prompt = caps.prompt ?? {};
      const session = (caps.sessionOperations ?? []).join(", ") || "—";
      const auth = (env.authMethods ?? []).map((m) => `${m.id} (${m.kind})`).join(", ") || "none";
      const stream = agent.stream("Say hello");
      const events = [];
      for await (const e of stream) events.push(e);
      const result = await stream.result.then((r) => r, (e) => ({ error: e }));
      const usage = [...new Set(events.filter((e) => e.type === "usage.observed").map((e) => e.provenance?.event ?? "?"))].join(", ") || "none";
      const commands = events.find((e) => e.type === "notice" && e.code === "available_commands")?.message.match(/offers (\d+)/)?.[1] ?? "0";
      const run = "error" in result ? `failed: ${result.error.code}` : `${events.at(-1).type} (${JSON.stringify(result.text)})`;
      return [
        cli,
        `${env.agentName ?? "?"} ${env.version ?? availability.version}`,
        env.protocolVersion ?? "?",
        `${yes(caps.loadSession === true)} / ${session}`,
        `${yes(prompt.image === true)} / ${yes(prompt.audio === true)} / ${yes(prompt.embeddedContext === true)}`,
        auth,
        run,
        usage,
        commands,
      ];
    } finally {
      await agent.close();
    }
  });
  rows.push(row);
}

const header = ["preset CLI", "agent and version", "protocol", "loadSession / sessionCapabilities", "image / audio / embeddedContext", "auth methods (kind)", "scripted text run", "usage reported via", "native commands"];
const line = (cells) => `| ${cells.map((c) => String(c).replace(/\|/g, "\\|")).join(" | ")} |`;
const table = [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
const stamp = `Measured ${new Date().toISOString().slice(0, 10)} on Node ${process.version}, ${process.platform}-${process.arch}.`;
const block = `<!-- acp-capabilities:start -->\n${table}\n\n${stamp}\n<!-- acp-capabilities:end -->`;
process.stdout.write(`${block}\n`);
if (process.argv.includes("--write")) {
  const docPath = join(root, "docs/drivers/acp.md");
  const doc = readFileSync(docPath, "utf8");
  const next = doc.replace(/<!-- acp-capabilities:start -->[\s\S]*?<!-- acp-capabilities:end -->/, block);
  writeFileSync(docPath, next);
}
