/** The tool set the driver offers: names, kinds, approvals, valid JSON Schemas the arguments agree with, options. */
import { Ajv2020 } from "ajv/dist/2020.js";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { builtinTools } from "../../../../src/drivers/openai/tools/index.js";
import { call, sandbox } from "./helpers.js";

/** One valid call of each tool, in a workspace holding a.txt ("hello\n"). */
const examples: Record<string, Record<string, unknown>> = {
  read: { path: "a.txt", offset: 1, limit: 5 },
  write: { path: "b.txt", content: "b\n" },
  edit: { path: "a.txt", old_string: "hello", new_string: "bye", replace_all: false },
  list: { path: "." },
  glob: { pattern: "*.txt", path: "." },
  grep: { pattern: "hel+o", path: ".", glob: "*.txt", ignore_case: true },
  bash: { command: "echo ok", timeout: 5000 },
};

describe("builtinTools", () => {
  it("offers the seven tools with their kinds and approvals", () => {
    const tools = builtinTools({ grep: { ripgrep: false } });
    expect(tools.map((t) => [t.name, t.kind, t.approval ?? "never"])).toEqual([
      ["read", "read", "never"],
      ["write", "file_change", "file_change"],
      ["edit", "file_change", "file_change"],
      ["list", "read", "never"],
      ["glob", "read", "never"],
      ["grep", "read", "never"],
      ["bash", "command", "command"],
    ]);
    for (const tool of tools) expect(tool.description.length, tool.name).toBeGreaterThan(80);
  });

  it("declares parameters as valid JSON Schemas that the example calls satisfy and run with", async () => {
    const ajv = new Ajv2020({ strict: true });
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "a.txt"), "hello\n");
    for (const tool of builtinTools({ grep: { ripgrep: false } })) {
      const validate = ajv.compile(tool.parameters);
      const args = examples[tool.name]!;
      expect(validate(args), `${tool.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(validate({ ...args, unexpected: 1 }), tool.name).toBe(false);
      const out = await call(tool, workspace, args);
      expect(out.isError, `${tool.name}: ${out.output}`).toBe(false);
    }
  });

  it("passes the bash options through", async () => {
    const bash = builtinTools({ bash: { timeoutMs: 7000, outputCapBytes: 10 } }).find((t) => t.name === "bash")!;
    expect(bash.description).toContain("after 7 s");
    const { workspace } = await sandbox();
    const out = await call(bash, workspace, { command: "seq 1 1000" });
    expect(out.output).toMatch(/^1\n2\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\n1000\n$/);
  });
});
