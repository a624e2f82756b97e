/**
 * Child environment scrubbing. A provider child gets an explicit environment built from a small
 * allowlist, never a copy of the host's: the host may hold credentials for other services that a
 * coding agent (which runs arbitrary commands) must not see.
 */

/** Parent variables every child receives: what shells, locales and temp files need to work. */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TERM",
  "SHELL",
  "TZ",
  // Where CLIs keep their own configuration and login state.
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  // Windows needs these to load system DLLs, resolve executables and find the profile.
  "SystemRoot",
  "SystemDrive",
  "windir",
  "ComSpec",
  "PATHEXT",
  "USERPROFILE",
  "USERNAME",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
  "ProgramFiles(x86)",
  "CommonProgramFiles",
  "NUMBER_OF_PROCESSORS",
  "PROCESSOR_ARCHITECTURE",
  "OS",
];

/** Prefixes of parent variables every child receives (`LC_ALL`, `LC_CTYPE`, ...). */
export const DEFAULT_ENV_ALLOWLIST_PREFIXES: readonly string[] = ["LC_"];

export interface ChildEnvOptions {
  /** Extra parent variable names to pass through (e.g. `"OPENAI_API_KEY"`, `"HTTPS_PROXY"`). */
  inheritEnv?: readonly string[];
  /** Explicit variables; they win over inherited ones. `undefined` removes a variable. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Platform whose naming rules apply (Windows names are case-insensitive). Default: this one. */
  platform?: NodeJS.Platform;
}

/** Builds the environment of a child from the parent's, keeping only allowed names. */
export function buildChildEnv(parent: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): Record<string, string> {
  const caseInsensitive = (options.platform ?? process.platform) === "win32";
  const norm = (name: string): string => (caseInsensitive ? name.toUpperCase() : name);
  const allowed = new Set([...DEFAULT_ENV_ALLOWLIST, ...(options.inheritEnv ?? [])].map(norm));
  const prefixes = DEFAULT_ENV_ALLOWLIST_PREFIXES.map(norm);

  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const n = norm(name);
    if (allowed.has(n) || prefixes.some((p) => n.startsWith(p))) out[name] = value;
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (caseInsensitive) {
      // Drop any differently-cased copy so the explicit value is the only one.
      for (const existing of Object.keys(out)) if (norm(existing) === norm(name)) delete out[existing];
    }
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}
