/**
 * Real-CLI lane: the collision policy against the native commands Claude Code itself reports in its
 * `initialize` answer (the Inspection's `commands` panel), against the scripted model server. No
 * run is started: the slash tool only reads the list.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claude } from "../../../src/drivers/claude/index.js";
import { createSlashCommands } from "../../../src/hosttools/slash/index.js";
import { createSession } from "../../../src/session/open.js";
import { withRealCli } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { laneEnv } from "../../drivers/real-lane.js";
import { handled } from "./helpers.js";

const KEY_ENV = "SLASH_LANE_KEY";

describeRealCli("claude", () => {
  it("finds Claude Code's own /compact (and the other shared names) and applies each policy to them", async () => {
    await withRealCli("claude", { turns: [] }, async (ctx) => {
      const driver = claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), [KEY_ENV]: "sk-slash-lane-0123456789" },
      });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      const session = await createSession(agent);
      try {
        const native = await agent.inspect();
        expect(native.commands.status).toBe("observed");
        const reject = createSlashCommands({ session, agent, collisions: "reject", aliases: { compact: ["squash"] } });
        const collisions = await reject.collisions();
        expect(collisions).toContainEqual({ name: "compact", command: "compact", resolution: "refused" });
        // Every collision is a name Claude Code really reported.
        const names = new Set((native.commands.value ?? []).map((c) => c.name.replace(/^\//, "").toLowerCase()));
        for (const c of collisions) expect(names.has(c.name)).toBe(true);

        const refused = handled(await reject.dispatch("/compact"));
        expect(refused).toMatchObject({ ok: false, code: "collision", command: "compact" });
        expect(refused.output).toContain("Use /squash for the portable /compact.");
        // The alias reaches the portable command (no turn yet: the session has nothing to compact).
        expect(handled(await reject.dispatch("/squash")).command).toBe("compact");

        const nativeFirst = createSlashCommands({ session, agent, collisions: "native-first", nativeCommands: native.commands.value ?? [] });
        expect(await nativeFirst.dispatch("/compact")).toEqual({ handled: false, reason: "native" });
        expect(handled(await nativeFirst.dispatch("/no-such-command-here"))).toMatchObject({ code: "unknown_command" });
        expect(ctx.server.requests.filter((r) => !r.auxiliary)).toHaveLength(0);
      } finally {
        await session.close();
        await agent.close();
      }
    });
  });
});
