/** The slash grammar and the names table: what is a command line, and which names reach which command. */
import { describe, expect, it } from "vitest";
import { parseCommandLine, splitArguments } from "../../../src/hosttools/slash/parse.js";
import { commandNames, SLASH_COMMAND_ORDER } from "../../../src/hosttools/slash/registry.js";
import { ConfigError } from "../../../src/errors/index.js";

describe("parseCommandLine", () => {
  it("reads the command word, lowercased, and its arguments", () => {
    expect(parseCommandLine("/model gpt-5")).toEqual({ name: "model", args: ["gpt-5"], rest: "gpt-5" });
    expect(parseCommandLine("  /HELP")).toEqual({ name: "help", args: [], rest: "" });
    expect(parseCommandLine("/goal  ship the  release ")).toEqual({ name: "goal", args: ["ship", "the", "release"], rest: "ship the  release" });
    expect(parseCommandLine("/resume\ttenant-42:chat.7")).toEqual({ name: "resume", args: ["tenant-42:chat.7"], rest: "tenant-42:chat.7" });
  });

  it("is plain text for paths, a double slash, a lone slash, text before the slash and non-words", () => {
    for (const text of ["/usr/bin is full", "//model x", "/", "/ model", "please /help", "/1abc", "/héllo", "", "hello"]) {
      expect(parseCommandLine(text), text).toBeUndefined();
    }
  });

  it("keeps quoted arguments whole, with escaped quotes inside", () => {
    expect(splitArguments('"tenant 42/chat" x')).toEqual(["tenant 42/chat", "x"]);
    expect(splitArguments('"say \\"hi\\"" ""')).toEqual(['say "hi"', ""]);
    expect(splitArguments('"unterminated quote')).toEqual(["unterminated quote"]);
    expect(splitArguments("  ")).toEqual([]);
  });
});

describe("commandNames", () => {
  it("reaches every portable command by its name, case-insensitively, and by the host's aliases", () => {
    const names = commandNames({ clear: ["reset", "/Wipe"], model: ["m"] });
    for (const command of SLASH_COMMAND_ORDER) expect(names.resolve(command.toUpperCase())).toBe(command);
    expect(names.resolve("reset")).toBe("clear");
    expect(names.resolve("wipe")).toBe("clear");
    expect(names.resolve("M")).toBe("model");
    expect(names.resolve("review")).toBeUndefined();
    expect(names.aliasesOf("clear")).toEqual(["reset", "wipe"]);
    expect(names.aliasesOf("help")).toEqual([]);
  });

  it("keeps the fixed presentation order", () => {
    expect(SLASH_COMMAND_ORDER).toEqual(["new", "resume", "fork", "model", "effort", "status", "help", "clear", "compact", "goal"]);
    expect(Object.isFrozen(SLASH_COMMAND_ORDER)).toBe(true);
  });

  it("refuses conflicting or malformed aliases at construction, naming them", () => {
    const refused = (aliases: unknown, message: RegExp) => {
      expect(() => commandNames(aliases as never)).toThrow(ConfigError);
      expect(() => commandNames(aliases as never)).toThrow(message);
    };
    refused({ clear: ["compact"] }, /"\/compact" of \/clear is the name of the portable command \/compact/);
    refused({ clear: ["reset"], new: ["RESET"] }, /"\/reset" is given to both \/clear and \/new/);
    refused({ clear: ["x", "x"] }, /"\/x" is given to both \/clear and \/clear/);
    refused({ review: ["r"] }, /"review" is not a portable command/);
    refused({ clear: ["two words"] }, /"two words" is not a command word/);
    refused({ clear: ["usr/bin"] }, /not a command word/);
    refused({ clear: [42] }, /an alias is a string/);
    refused({ clear: "reset" }, /aliases.clear must be an array/);
    refused(["reset"], /aliases must be an object/);
  });
});
