/**
 * The ACP driver declares audio input natively: proven on the real Gemini CLI, which advertises
 * `promptCapabilities.audio` and forwards an ACP audio block to the Gemini API as `inlineData`.
 * The scripted model server must receive an audio part whose decoded bytes are the staged file's,
 * byte for byte (same length and SHA-256).
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { gemini } from "../../../src/drivers/acp/index.js";
import { input } from "../../../src/input/index.js";
import type { CapturedPart } from "../../../src/testing/model-server/index.js";
import { withRealCli } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

/** A short mono 16-bit PCM WAV: a 44-byte RIFF header and 0.01 s of a rising ramp at 8 kHz. */
function wav(): Buffer {
  const samples = 80;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(i * 300 - 12_000, i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describeRealCli("gemini", () => {
  it("an audio input reaches the model as a native audio part with the same bytes", async () => {
    const bytes = wav();
    await withRealCli("gemini", { turns: [{ reply: { text: "Heard it." } }] }, async (ctx) => {
      const source = join(ctx.root, "ramp.wav");
      await writeFile(source, bytes);
      const driver = gemini({
        provider: { baseUrl: ctx.server.url.replace(/\/+$/, ""), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model },
        env: ctx.env,
      });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const result = await agent.run("What is in the recording?", {
          inputs: [input.fromPath("audio", source, { mediaType: "audio/wav", requireMode: "native" })],
        });
        expect(result.text).toBe("Heard it.");
      } finally {
        await agent.close();
      }
      const parts: CapturedPart[] = ctx.server.requests
        .filter((r) => r.dialect === ctx.spec.dialect && !r.auxiliary)
        .flatMap((r) => r.messages.flatMap((m) => m.parts));
      expect(parts).toContainEqual(
        expect.objectContaining({ type: "audio", mediaType: "audio/wav", byteLength: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }),
      );
      expect(JSON.stringify(parts)).not.toContain(source);
    });
  });
});
