/** The driver names a server configuration may use (`agents.<name>.driver`). */
export const SERVER_DRIVER_NAMES = [
  "codex",
  "claude",
  "codebuddy",
  "acp",
  "codex-acp",
  "gemini",
  "qwen",
  "cursor",
  "copilot",
  "pi",
  "openai",
  "fake",
  "demo",
] as const;

export type ServerDriverName = (typeof SERVER_DRIVER_NAMES)[number];
