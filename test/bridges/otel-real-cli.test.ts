/**
 * Real-CLI lane (issue #19 item 6): a run of the real Codex CLI under `openTelemetry()` with an SDK
 * starts `codex app-server` with the run span's context as TRACEPARENT. A wrapper records the
 * variable and then `exec`s the real binary (same process, same environment).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, it } from "vitest";
import { openTelemetry } from "../../src/bridges/otel/index.js";
import { createAgent } from "../../src/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { SCRIPTED_KEY_ENV, withRealCli } from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "../real-cli/helpers.js";

describeRealCli("codex", () => {
  it("codex app-server is started with the run span's TRACEPARENT", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello." } }] };
    await withRealCli("codex", script, async (ctx) => {
      const log = join(ctx.root, "traceparent.log");
      const wrapper = join(ctx.root, "codex-wrapper");
      writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$TRACEPARENT" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(ctx.executable)} "$@"\n`);
      chmodSync(wrapper, 0o755);
      const exporter = new InMemorySpanExporter();
      const observer = await openTelemetry({ tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) });
      const driver = codex({
        executable: wrapper,
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      });
      const agent = createAgent(driver, { workspace: ctx.workspace, observers: [observer] });
      try {
        const result = await agent.run("Say hello", { policy: { sandbox: "workspace-write", approval: "on-request", network: true } });
        expect(result.text).toBe("Hello.");
      } finally {
        await agent.close();
      }
      const run = exporter.getFinishedSpans().find((span) => span.name === "invoke_agent codex")!;
      expect(run.attributes["agent_adaptor.run.status"]).toBe("completed");
      expect(existsSync(log)).toBe(true);
      const recorded = readFileSync(log, "utf8").trim().split("\n");
      expect(recorded).toEqual([`00-${run.spanContext().traceId}-${run.spanContext().spanId}-01`]);
    });
  });
});
