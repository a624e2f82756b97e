/** The driver kit's skill materialization: the layout, modes, SKILL.md frontmatter and the refusals. */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { materializeSkills, removeSkills } from "../../../src/driver/kit/skills.js";
import { ConfigError } from "../../../src/errors/index.js";

let root: string;
let source: string;
let target: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "aa-skills-"));
  source = join(root, "source", "pdf-tools");
  target = join(root, "run", "skills");
  await mkdir(join(source, "scripts"), { recursive: true });
  await writeFile(join(source, "SKILL.md"), "---\nname: pdf-tools\ndescription: Works with PDF files.\n---\n\n# PDF\n");
  await writeFile(join(source, "scripts", "extract.sh"), "#!/bin/sh\necho hi\n");
  await chmod(join(source, "scripts", "extract.sh"), 0o755);
  await writeFile(join(source, "reference.md"), "ref\n");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe("materializeSkills", () => {
  it("copies a path skill under <target>/<name>, directories 0700, files 0600 (scripts stay executable)", async () => {
    const dirs = await materializeSkills([{ name: "pdf-tools", path: source }], target);
    expect(dirs).toEqual([join(target, "pdf-tools")]);
    expect(await modeOf(target)).toBe(0o700);
    expect(await modeOf(dirs[0]!)).toBe(0o700);
    expect(await modeOf(join(dirs[0]!, "scripts"))).toBe(0o700);
    expect(await modeOf(join(dirs[0]!, "reference.md"))).toBe(0o600);
    expect(await modeOf(join(dirs[0]!, "SKILL.md"))).toBe(0o600);
    expect(await modeOf(join(dirs[0]!, "scripts", "extract.sh"))).toBe(0o700);
    expect(await readFile(join(dirs[0]!, "SKILL.md"), "utf8")).toBe("---\nname: pdf-tools\ndescription: Works with PDF files.\n---\n\n# PDF\n");
    expect(await readFile(join(dirs[0]!, "scripts", "extract.sh"), "utf8")).toBe("#!/bin/sh\necho hi\n");
  });

  it("writes an inline skill's files, adding the frontmatter SKILL.md lacks from the skill's name and description", async () => {
    const dirs = await materializeSkills(
      [{ name: "greeter", description: 'Says "hi": politely.', files: { "SKILL.md": "Greet the user.\n", "./docs//tone.md": "warm\n" } }],
      target,
    );
    expect(await readFile(join(dirs[0]!, "SKILL.md"), "utf8")).toBe('---\nname: greeter\ndescription: "Says \\"hi\\": politely."\n---\n\nGreet the user.\n');
    expect(await readFile(join(dirs[0]!, "docs", "tone.md"), "utf8")).toBe("warm\n");
    expect(await modeOf(join(dirs[0]!, "docs"))).toBe(0o700);
    expect(await modeOf(join(dirs[0]!, "docs", "tone.md"))).toBe(0o600);
  });

  it("names the skill as the host did in its frontmatter (the directory's name) and keeps a description the file states", async () => {
    await writeFile(join(source, "SKILL.md"), "---\nname: other-name\ndescription: From the file.\nlicense: MIT\n---\nBody\n");
    const [dir] = await materializeSkills([{ name: "pdf", description: "From the host.", path: source }], target);
    expect(await readFile(join(dir!, "SKILL.md"), "utf8")).toBe("---\nname: pdf\ndescription: From the file.\nlicense: MIT\n---\nBody\n");
  });

  it("follows links that stay inside the skill and refuses one pointing out of it, leaving nothing behind", async () => {
    await symlink(join(source, "reference.md"), join(source, "alias.md"));
    await symlink("scripts", join(source, "bin"));
    const [dir] = await materializeSkills([{ name: "pdf-tools", path: source }], target);
    expect(await readFile(join(dir!, "alias.md"), "utf8")).toBe("ref\n");
    expect(await readdir(join(dir!, "bin"))).toEqual(["extract.sh"]);

    await writeFile(join(root, "host-secret.txt"), "secret\n");
    await symlink(join(root, "host-secret.txt"), join(source, "leak.md"));
    const refused = materializeSkills([{ name: "inline", files: { "SKILL.md": "x" } }, { name: "pdf-tools", path: source }], target);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow('skill "pdf-tools": "leak.md" links outside the skill directory');
    expect(await readdir(target)).toEqual([]);
  });

  it("refuses a link loop, a missing SKILL.md, a relative path and unsafe names or file paths", async () => {
    await symlink(".", join(source, "loop"));
    await expect(materializeSkills([{ name: "pdf-tools", path: source }], target)).rejects.toThrow("links back to a directory above it");
    await rm(join(source, "loop"));
    await rm(join(source, "SKILL.md"));
    await expect(materializeSkills([{ name: "pdf-tools", path: source }], target)).rejects.toThrow("holds no SKILL.md file");
    await expect(materializeSkills([{ name: "pdf-tools", path: "source/pdf-tools" }], target)).rejects.toThrow("path must be absolute");
    await expect(materializeSkills([{ name: "../up", files: { "SKILL.md": "x" } }], target)).rejects.toThrow('skill "../up": invalid name');
    await expect(materializeSkills([{ name: "a", files: { "../x.md": "x", "SKILL.md": "x" } }], target)).rejects.toThrow(
      'file "../x.md": expected a path inside the skill directory',
    );
    await expect(materializeSkills([{ name: "a", files: { "/etc/x": "x" } }], target)).rejects.toThrow("expected a relative path");
    await expect(materializeSkills([{ name: "a", files: { "x.md": "x" } }], target)).rejects.toThrow('files must hold "SKILL.md"');
    await expect(materializeSkills([{ name: "a", files: { "SKILL.md": "x", "d": "x", "d/e": "y" } }], target)).rejects.toThrow('file "d/e" cannot be written');
    expect(await readdir(root)).toEqual(["run", "source"]);
    expect(await readdir(target)).toEqual([]);
  });

  it("replaces a skill directory written before, and removeSkills removes what it wrote", async () => {
    await materializeSkills([{ name: "greeter", files: { "SKILL.md": "old", "old.md": "old" } }], target);
    const dirs = await materializeSkills([{ name: "greeter", files: { "SKILL.md": "new" } }], target);
    expect(await readdir(dirs[0]!)).toEqual(["SKILL.md"]);
    await removeSkills(dirs);
    await removeSkills(dirs);
    expect(await readdir(target)).toEqual([]);
  });
});
