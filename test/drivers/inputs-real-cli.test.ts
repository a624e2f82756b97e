/**
 * Every native input capability a built-in driver declares, proven on its real CLI: the model
 * server receives a native part whose decoded bytes have the staged file's SHA-256.
 */
import { createHash } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent, input, type Driver, type InputKind } from "../../src/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { CapturedPart } from "../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliName } from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "../real-cli/helpers.js";
import { laneEnv, PNG_1X1 } from "./real-lane.js";

const LANE_KEY_ENV = "INPUTS_LANE_KEY";
/** A minimal well-formed one-page PDF. */
const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
);

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

interface Lane {
  cli: RealCliName;
  dialect: string;
  make(ctx: RealCliContext): Promise<Driver>;
  inputs: { kind: InputKind; name: string; mediaType: string; bytes: Buffer; part: "image" | "file" }[];
}

const LANES: Lane[] = [
  {
    cli: "codex",
    dialect: "responses",
    make: async (ctx) =>
      codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_inputs", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      }),
    inputs: [{ kind: "image", name: "pixel.png", mediaType: "image/png", bytes: PNG_1X1, part: "image" }],
  },
  {
    cli: "claude",
    dialect: "anthropic",
    make: async (ctx) =>
      claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: LANE_KEY_ENV },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), [LANE_KEY_ENV]: "sk-inputs-lane-0123456789" },
      }),
    inputs: [
      { kind: "image", name: "pixel.png", mediaType: "image/png", bytes: PNG_1X1, part: "image" },
      { kind: "file", name: "page.pdf", mediaType: "application/pdf", bytes: PDF, part: "file" },
    ],
  },
  {
    cli: "codebuddy",
    dialect: "chat",
    make: async (ctx) => {
      await rm(join(ctx.configDir, "models.json"), { force: true });
      return codebuddy({
        executable: ctx.entry,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: LANE_KEY_ENV },
        env: { ...laneEnv(ctx, []), [LANE_KEY_ENV]: "cb-inputs-lane-0123456789" },
      });
    },
    inputs: [{ kind: "image", name: "pixel.png", mediaType: "image/png", bytes: PNG_1X1, part: "image" }],
  },
];

for (const lane of LANES) {
  describeRealCli(lane.cli, () => {
    it(`delivers ${lane.inputs.map((i) => i.mediaType).join(" and ")} as native parts with the same bytes`, async () => {
      await withRealCli(lane.cli, { turns: [{ reply: { text: "Received." } }] }, async (ctx) => {
        const refs = [];
        for (const staged of lane.inputs) {
          const path = join(ctx.root, staged.name);
          await writeFile(path, staged.bytes);
          refs.push(input.fromPath(staged.kind, path, { mediaType: staged.mediaType }));
        }
        const driver = await lane.make(ctx);
        // Every declared native capability must be covered by this test.
        const declared = Object.entries(driver.descriptor().inputs).filter(([, c]) => c.modes.includes("native")).map(([kind]) => kind);
        expect(declared.sort()).toEqual([...new Set(lane.inputs.map((i) => i.kind))].sort());
        const agent = createAgent(driver, { workspace: ctx.workspace, defaults: { model: ctx.model } });
        try {
          const result = await agent.run("What did I send?", { inputs: refs });
          expect(result.text).toBe("Received.");
        } finally {
          await agent.close();
        }
        const request = ctx.server.requests.find((r) => r.dialect === lane.dialect && !r.auxiliary);
        const parts: CapturedPart[] = request!.messages.flatMap((m) => m.parts);
        for (const staged of lane.inputs) {
          expect(parts).toContainEqual(expect.objectContaining({ type: staged.part, sha256: sha256(staged.bytes) }));
        }
        // The host's staged path never reaches the model (a CLI may name the run-owned copy).
        for (const staged of lane.inputs) expect(JSON.stringify(request!.messages)).not.toContain(join(ctx.root, staged.name));
      });
    });
  });
}
