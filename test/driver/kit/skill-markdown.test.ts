/** The skill format's rules and SKILL.md's frontmatter as providers receive it. */
import { describe, expect, it } from "vitest";
import { hasFrontmatterDescription, skillDescriptionProblem, skillFilePath, skillMarkdown, skillNameProblem } from "../../../src/driver/kit/skill-markdown.js";

describe("skill names, descriptions and file paths", () => {
  it("accepts the Agent Skills names only", () => {
    for (const name of ["a", "pdf-tools", "v2", "x".repeat(64)]) expect(skillNameProblem(name)).toBeUndefined();
    for (const name of ["", "Pdf", "pdf_tools", "-a", "a-", "a--b", "a b", "../a", "a/b", ".", "x".repeat(65)]) expect(skillNameProblem(name)).toBeDefined();
  });

  it("wants a non-empty description of at most 1024 characters", () => {
    expect(skillDescriptionProblem("Does a thing.")).toBeUndefined();
    expect(skillDescriptionProblem("  ")).toBeDefined();
    expect(skillDescriptionProblem("x".repeat(1025))).toBeDefined();
  });

  it("normalizes inline file paths and refuses those leaving the skill", () => {
    expect(skillFilePath("./a//b.md")).toEqual({ path: "a/b.md" });
    expect(skillFilePath("a/../SKILL.md")).toEqual({ path: "SKILL.md" });
    for (const bad of ["", "/abs", "..", "../x", "a/../../x", ".", "a\\b", "a\0b"]) expect(skillFilePath(bad)).toHaveProperty("problem");
  });
});

describe("SKILL.md frontmatter", () => {
  it("tells whether the frontmatter states a description (inline or as a block)", () => {
    expect(hasFrontmatterDescription("---\ndescription: x\n---\n")).toBe(true);
    expect(hasFrontmatterDescription("---\ndescription: >\n  folded\n  text\n---\n")).toBe(true);
    expect(hasFrontmatterDescription("---\ndescription:\n---\n")).toBe(false);
    expect(hasFrontmatterDescription('---\ndescription: ""\n---\n')).toBe(false);
    expect(hasFrontmatterDescription("---\nname: a\n---\n")).toBe(false);
    expect(hasFrontmatterDescription("description: x\n")).toBe(false);
    expect(hasFrontmatterDescription("---\ndescription: x\n")).toBe(false);
  });

  it("sets the name (a multi-line one too), adds a missing or empty description, keeps other keys and the body", () => {
    expect(skillMarkdown("a", "D", "---\nlicense: MIT\n---\nBody")).toBe('---\nname: a\nlicense: MIT\ndescription: "D"\n---\nBody');
    expect(skillMarkdown("a", "D", "---\nname: old\n  continued\ndescription:\nx: 1\n---\nBody")).toBe('---\nname: a\nx: 1\ndescription: "D"\n---\nBody');
    expect(skillMarkdown("a", undefined, "\uFEFFBody")).toBe("---\nname: a\n---\n\nBody");
    expect(skillMarkdown("a", "D", "---\r\nname: a\r\ndescription: kept\r\n---\r\nBody")).toBe("---\nname: a\ndescription: kept\n---\nBody");
  });
});
