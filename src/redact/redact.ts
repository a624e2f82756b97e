/**
 * Redaction (DESIGN §5, §12): secrets never appear in events, results, errors, inspection
 * snapshots or default logs. One redactor scrubs both free text (stderr tails, excerpts, error
 * messages) and structured values (provider observations before they become public DTOs).
 *
 * Everything it knows is compiled into a single regular expression so a scan costs one pass,
 * however many secrets are registered.
 */

/** The text that replaces every secret. */
export const REDACTED = "[REDACTED]";

/**
 * Registered secrets shorter than this are ignored: a two-letter "secret" would shred every
 * message it touches while protecting nothing.
 */
export const MIN_SECRET_LENGTH = 4;

/** Environment values shorter than this are not treated as secrets (`DEBUG_TOKEN=1`). */
export const MIN_ENV_SECRET_LENGTH = 6;

export interface RedactorOptions {
  /** Literal secrets to remove wherever they appear. */
  secrets?: readonly string[];
  /** Values of variables whose names look secret (see {@link isSecretEnvName}) become secrets. */
  env?: NodeJS.ProcessEnv;
}

export interface Redactor {
  /** Registers one more literal secret; later calls to the redactor remove it. */
  addSecret(value: string): void;
  /** Returns `s` with every known secret and every secret-looking token replaced. */
  redactText(s: string): string;
  /**
   * Deep copy of `v` in which every string (keys included) is redacted and every value under a
   * secret-looking key (`apiKey`, `token`, `authorization`, ...) is replaced. Cycles are kept.
   */
  redactValue<T>(v: T): T;
}

/** Words a key or flag name ends with when its value is a credential. */
const SECRET_WORD =
  "(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|session[_-]?key|token|secret|password|passwd|credentials?|cookie|authorization)";

/**
 * Secret-shaped tokens recognised without being registered. Where a pattern has a named label
 * group (see {@link LABEL_GROUPS}) the label is kept, so `Bearer [REDACTED]` still says what was
 * removed, and only the rest of the match is replaced.
 */
const PATTERN_SOURCES: readonly string[] = [
  // PEM private keys: the whole block.
  String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`,
  // HTTP auth headers written as text: keep the header name, drop the rest of the line.
  String.raw`(?<h>\b(?:proxy-)?authorization\s*:\s*)[^\r\n"\\]+`,
  String.raw`(?<b>\bbearer\s+)[A-Za-z0-9\-._~+/]+=*`,
  String.raw`(?<c>\bbasic\s+)[A-Za-z0-9+/]{8,}=*`,
  // Well-known key formats.
  String.raw`\bsk-(?:ant-)?[A-Za-z0-9_\-]{8,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{16,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{16,}`,
  String.raw`\bxox[abposr]-[A-Za-z0-9\-]{8,}`,
  String.raw`\bAIza[0-9A-Za-z_\-]{20,}`,
  String.raw`\bAKIA[0-9A-Z]{16}\b`,
  String.raw`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]+`,
  // --api-key VALUE style command-line flags.
  String.raw`(?<f>--[A-Za-z0-9-]*${SECRET_WORD}[ =])[^\s"']+`,
  // key=value / key: value / "key":"value" (also inside JSON nested as a string) where the key
  // ends in a secret word. `tokens`, `apiKeySource`, `password_required` do not end in one.
  String.raw`(?<k>(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]*?${SECRET_WORD}(?:\\*["'])?\s*[:=]\s*(?:\\+["'])?)(?:"(?:[^"\\\r\n]|\\.)*"|'[^'\r\n]*'|[^\s"'\\,;&}\]]+)`,
];

const LABEL_GROUPS = ["h", "b", "c", "f", "k"] as const;

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/**
 * Pattern of a literal secret that also matches it JSON-escaped to any depth (a secret inside a
 * string that was itself stringified, possibly several times): every character JSON escapes, say
 * `"`, may appear as itself or as its escape behind any number of backslashes (`\"`, `\\\"`, ...).
 */
function literalPattern(secret: string): string {
  let out = "";
  for (const ch of secret) {
    const escaped = JSON.stringify(ch).slice(1, -1);
    out += escaped === ch ? escapeRegExp(ch) : `(?:${escapeRegExp(ch)}|\\\\+${escapeRegExp(escaped.slice(1))})`;
  }
  return out;
}

/** Whether an environment variable name looks like it holds a credential. */
export function isSecretEnvName(name: string): boolean {
  const n = name.toUpperCase();
  return (
    /(?:^|_)(?:KEY|TOKEN|SECRET|APIKEY|PAT)$/.test(n) ||
    n.includes("PASSWORD") ||
    n.includes("PASSWD") ||
    n.includes("CREDENTIAL") ||
    n.includes("API_KEY") ||
    n.includes("SECRET") ||
    n.includes("AUTHORIZATION") ||
    n.endsWith("_AUTH") ||
    n.endsWith("_COOKIE")
  );
}

/**
 * The values a driver hands a child that must be redacted: every variable of `env` whose name
 * looks secret (see {@link isSecretEnvName}) and each variable named in `named` — a provider's
 * `apiKeyEnv`, whatever its name — read from `env`, else from the host's environment.
 */
export function secretEnvValues(
  env: Readonly<Record<string, string | undefined>> | undefined,
  named: readonly (string | undefined)[] = [],
): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value !== undefined && value.length >= MIN_ENV_SECRET_LENGTH && isSecretEnvName(name)) out.add(value);
  }
  for (const name of named) {
    if (name === undefined) continue;
    const value = env !== undefined && Object.hasOwn(env, name) ? env[name] : process.env[name];
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH) out.add(value);
  }
  return [...out];
}

/** {@link isSecretKey}'s answers by key: every redacted object asks again for the same few keys. */
const secretKeys = new Map<string, boolean>();
const SECRET_KEYS_CACHED = 4096;
const SECRET_KEY_CACHED_LENGTH = 64;

const SECRET_KEY_SUFFIXES = [
  "apikey",
  "accesskey",
  "secretkey",
  "privatekey",
  "sessionkey",
  "token",
  "secret",
  "password",
  "passwd",
  "authorization",
  "cookie",
  "cookies",
  "credential",
  "credentials",
];

/**
 * Whether an object key names a secret. Matches on the key's ending so that `accessToken` and
 * `OPENAI_API_KEY` are secret while `input_tokens`, `apiKeySource` and `apiKeyEnv` (the *name*
 * of a variable) are not.
 */
export function isSecretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    const n = key.toLowerCase().replace(/[^a-z0-9]/g, "");
    secret = SECRET_KEY_SUFFIXES.some((suffix) => n.endsWith(suffix));
    // Only short keys are kept: a provider sending long unique keys must not grow this cache's bytes.
    if (key.length <= SECRET_KEY_CACHED_LENGTH) {
      if (secretKeys.size >= SECRET_KEYS_CACHED) secretKeys.clear();
      secretKeys.set(key, secret);
    }
  }
  return secret;
}

/** Creates a redactor; see {@link Redactor}. */
// long-function: the redactor's functions share one compiled state (literals, patterns); each is short
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const literals = new Set<string>();
  let combined: RegExp | undefined;
  let literalOnly: RegExp | undefined;
  // For streamed text (see streamCutIndex): case-insensitive, as `combined` matches literals.
  let literalAny: RegExp | undefined;
  let longest = 0;
  // Short strings redacted for the current secrets and placeholders: the keys and tags of event
  // payloads (`input_tokens`, `usage.observed`, `openai`) come back in every value redacted.
  const shortCache = new Map<string, string>();

  const add = (value: string, min: number): void => {
    if (typeof value !== "string" || value.length < min) return;
    // A secret inside the placeholder could never be removed: the placeholder reintroduces it.
    if (REDACTED.includes(value) || literals.has(value)) return;
    literals.add(value);
    combined = undefined;
    literalOnly = undefined;
  };

  for (const s of options.secrets ?? []) add(s, MIN_SECRET_LENGTH);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value !== undefined && isSecretEnvName(name)) add(value, MIN_ENV_SECRET_LENGTH);
  }

  const literalSource = (): string | undefined => {
    if (literals.size === 0) return undefined;
    // Longest first, so a secret that contains another is removed whole.
    return [...literals]
      .sort((a, b) => b.length - a.length)
      .map(literalPattern)
      .join("|");
  };

  const compile = (): void => {
    shortCache.clear();
    const lit = literalSource();
    longest = 0;
    for (const literal of literals) longest = Math.max(longest, literal.length);
    literalAny = lit === undefined ? undefined : new RegExp(lit, "gi");
    // Literals come first so that, at the same position, a registered secret wins over a pattern.
    combined = new RegExp(lit === undefined ? PATTERN_SOURCES.join("|") : `(?<l>${lit})|${PATTERN_SOURCES.join("|")}`, "gi");
    literalOnly = lit === undefined ? undefined : new RegExp(lit, "g");
  };

  const replacer = (match: string, ...rest: unknown[]): string => {
    const groups = rest[rest.length - 1] as Record<string, string | undefined>;
    if (groups.l !== undefined) return REDACTED;
    for (const name of LABEL_GROUPS) {
      const label = groups[name];
      if (label !== undefined) {
        const value = match.slice(label.length);
        const quoted = value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0];
        return quoted ? `${label}${value[0]}${REDACTED}${value[0]}` : label + REDACTED;
      }
    }
    return REDACTED;
  };

  const redactText = (s: string): string => {
    if (typeof s !== "string" || s.length === 0) return s;
    if (combined === undefined) compile();
    let out = s.replace(combined!, replacer);
    if (literalOnly !== undefined) {
      // A pattern match can swallow the start of a literal, and a replacement can complete one
      // together with the text next to it. Repeat until no literal is left.
      for (let i = 0; i < 4; i++) {
        literalOnly.lastIndex = 0;
        if (!literalOnly.test(out)) return out;
        out = out.replace(literalOnly, REDACTED);
      }
      for (const lit of literals) if (out.includes(lit)) out = out.split(lit).join(REDACTED);
    }
    return out;
  };

  const redactShort = (s: string): string => {
    if (s.length > SHORT_TEXT_LENGTH) return redactText(s);
    if (combined === undefined) compile();
    let out = shortCache.get(s);
    if (out === undefined) {
      out = redactText(s);
      if (shortCache.size >= SHORT_TEXTS_CACHED) shortCache.clear();
      shortCache.set(s, out);
    }
    return out;
  };

  const redactValue = <T>(v: T): T => copyRedacted(v, redactShort, new WeakMap()) as T;

  const redactLiterals = (s: string): string => {
    if (typeof s !== "string" || s.length === 0) return s;
    if (combined === undefined) compile();
    if (literalOnly === undefined) return s;
    literalOnly.lastIndex = 0;
    if (!literalOnly.test(s)) return s;
    let out = s.replace(literalOnly, REDACTED);
    for (const lit of literals) if (out.includes(lit)) out = out.split(lit).join(REDACTED);
    return out;
  };

  const redactor: Redactor = {
    addSecret: (value: string) => add(value, MIN_SECRET_LENGTH),
    redactText,
    redactValue,
  };
  literalRedactors.set(redactor, redactLiterals);
  shortRedactors.set(redactor, redactShort);
  forgetters.set(redactor, (value) => {
    if (!literals.delete(value)) return;
    combined = undefined;
    literalOnly = undefined;
  });
  streamCuts.set(redactor, {
    hold: () => {
      if (combined === undefined) compile();
      return longest;
    },
    cut: (s, at) => {
      if (combined === undefined) compile();
      return literalAny === undefined ? at : cutOutside(literalAny, s, at);
    },
  });
  return redactor;
}

/** Strings up to this length are redacted once per redactor state (see `redactShort`). */
const SHORT_TEXT_LENGTH = 64;
/** The short-text cache is emptied when it reaches this many entries (unique short values churn it). */
const SHORT_TEXTS_CACHED = 1024;

/** How each redactor made by {@link createRedactor} redacts a short string through its cache. */
const shortRedactors = new WeakMap<Redactor, (s: string) => string>();

/** How a text stream is cut so that no registered literal of a redactor is split by the cut. */
interface StreamCut {
  /** The longest registered literal's length; 0 with none. */
  hold(): number;
  /** The greatest index at most `at` at which no literal occurrence in `s` starts before and ends after. */
  cut(s: string, at: number): number;
}

const streamCuts = new WeakMap<Redactor, StreamCut>();

/**
 * `at`, or the start of the occurrence of `pattern` (global) in `s` that spans it. Occurrences
 * are found as the redactor finds them, left to right, so the parts on each side redact as the whole.
 */
function cutOutside(pattern: RegExp, s: string, at: number): number {
  pattern.lastIndex = 0;
  for (let m = pattern.exec(s); m !== null; m = pattern.exec(s)) {
    if (m.index >= at) break;
    const end = m.index + m[0].length;
    if (end > at) return m.index;
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return at;
}

/**
 * How many characters at the end of a streamed text must wait for the next chunk before it is
 * redacted: one less than the longest literal `redactor` knows (registered secrets, placeholders),
 * 0 when it knows none or was not made here. Only literals have a bound; secret-shaped patterns
 * (`sk-…`, `Bearer …`) and a literal JSON-escaped into a longer form do not, and are not held for.
 */
export function streamHoldLength(redactor: Redactor): number {
  const longest = streamCuts.get(redactor)?.hold() ?? 0;
  return longest > 1 ? longest - 1 : 0;
}

/**
 * Where to cut `s` (at most at `at`) so that the part before and the part after, each redacted by
 * `redactor`, together equal `s` redacted: no occurrence of a literal it knows spans the cut.
 */
export function streamCutIndex(redactor: Redactor, s: string, at: number): number {
  const cuts = streamCuts.get(redactor);
  return cuts === undefined ? at : cuts.cut(s, at);
}

/** How each redactor made by {@link createRedactor} removes its registered secrets only. */
const literalRedactors = new WeakMap<Redactor, (s: string) => string>();

/**
 * `s` with the registered secrets of `redactor` removed, but no secret-shaped pattern: for
 * strings whose other bytes must stay as they are (base64 media, where a pattern could match by
 * chance). A redactor not made by {@link createRedactor} redacts `s` fully.
 */
export function redactSecretsOnly(redactor: Redactor, s: string): string {
  const literal = literalRedactors.get(redactor);
  return literal === undefined ? redactor.redactText(s) : literal(s);
}

/** How each redactor made by {@link createRedactor} drops a literal it holds. */
const forgetters = new WeakMap<Redactor, (value: string) => void>();

/**
 * Drops a secret registered with `addSecret` from a redactor made by {@link createRedactor}: one
 * that can no longer be used (a revoked token). Each literal costs every later redaction, so a
 * long-lived redactor must not keep them all.
 */
export function forgetSecret(redactor: Redactor, value: string): void {
  forgetters.get(redactor)?.(value);
}

/**
 * `base`, with each literal of `placeholders` (a run-scoped value that is not a secret, such as
 * the path of a run's input copy) first replaced by its placeholder. Longest literal first, so a
 * path wins over its directory; JSON-escaped occurrences are replaced too. `addSecret` goes to `base`.
 */
export function withPlaceholders(base: Redactor, placeholders: ReadonlyMap<string, string>): Redactor {
  const entries = [...placeholders].filter(([literal]) => literal.length >= MIN_SECRET_LENGTH).sort(([a], [b]) => b.length - a.length);
  const pattern = entries.length === 0 ? undefined : new RegExp(entries.map(([literal]) => `(${literalPattern(literal)})`).join("|"), "g");
  const redactText = (s: string): string => {
    if (typeof s !== "string" || s.length === 0) return s;
    const replaced = pattern === undefined ? s : s.replace(pattern, (...groups: unknown[]) => entries[groups.slice(1, entries.length + 1).findIndex((g) => g !== undefined)]![1]);
    return base.redactText(replaced);
  };
  // A string none of the placeholders occurs in is redacted as `base` redacts it, through its cache.
  const baseShort = shortRedactors.get(base);
  const anywhere = pattern === undefined ? undefined : new RegExp(pattern.source);
  const redactValueText =
    baseShort === undefined ? redactText : (s: string): string => (anywhere !== undefined && anywhere.test(s) ? redactText(s) : baseShort(s));
  const redactor: Redactor = {
    addSecret: (value: string) => base.addSecret(value),
    redactText,
    redactValue: <T>(v: T): T => copyRedacted(v, redactValueText, new WeakMap()) as T,
  };
  const placeholderLongest = entries.reduce((n, [literal]) => Math.max(n, literal.length), 0);
  const anyPlaceholder = pattern === undefined ? undefined : new RegExp(pattern.source, "g");
  streamCuts.set(redactor, {
    hold: () => Math.max(placeholderLongest, streamCuts.get(base)?.hold() ?? 0),
    cut: (s, at) => {
      // Each cut only moves earlier, so this ends.
      for (;;) {
        const placed = anyPlaceholder === undefined ? at : cutOutside(anyPlaceholder, s, at);
        const next = streamCutIndex(base, s, placed);
        if (next === at) return at;
        at = next;
      }
    },
  });
  return redactor;
}

/** The replacement for a value stored under a secret-looking key; booleans and null reveal nothing. */
function maskSecretValue(v: unknown): unknown {
  if (v === null || v === undefined || typeof v === "boolean" || v === "") return v;
  return REDACTED;
}

function copyRedacted(v: unknown, text: (s: string) => string, seen: WeakMap<object, unknown>): unknown {
  if (typeof v === "string") return text(v);
  if (typeof v !== "object" || v === null) return v;
  const prior = seen.get(v);
  if (prior !== undefined) return prior;
  // Plain objects are most of what is redacted (every event payload): copied as plain fields,
  // without the general path's defineProperty per key, which leaves V8 a slow dictionary object.
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return copyPlainObject(v as Record<string, unknown>, proto === null, text, seen);

  if (Array.isArray(v)) {
    const out: unknown[] = [];
    seen.set(v, out);
    for (const item of v) out.push(copyRedacted(item, text, seen));
    return out;
  }
  if (v instanceof Date) return new Date(v.getTime());
  // Bytes are not text: copied, not scanned.
  if (Buffer.isBuffer(v)) return Buffer.from(v);
  if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return structuredClone(v);
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>();
    seen.set(v, out);
    for (const [k, val] of v) {
      const secret = typeof k === "string" && isSecretKey(k);
      out.set(copyRedacted(k, text, seen), secret ? maskSecretValue(val) : copyRedacted(val, text, seen));
    }
    return out;
  }
  if (v instanceof Set) {
    const out = new Set<unknown>();
    seen.set(v, out);
    for (const item of v) out.add(copyRedacted(item, text, seen));
    return out;
  }

  // Plain objects, errors and class instances: keep the prototype, copy own enumerable fields.
  const out = Object.create(Object.getPrototypeOf(v) as object | null) as object;
  seen.set(v, out);
  if (v instanceof Error) {
    // message, stack and cause are own but not enumerable.
    const hidden = (key: string, value: unknown): void => {
      Object.defineProperty(out, key, { value, writable: true, configurable: true, enumerable: false });
    };
    hidden("message", text(v.message));
    if (v.stack !== undefined) hidden("stack", text(v.stack));
    if ("cause" in v) hidden("cause", copyRedacted(v.cause, text, seen));
  }
  for (const key of Reflect.ownKeys(v)) {
    if (!Object.prototype.propertyIsEnumerable.call(v, key)) continue;
    const val = (v as Record<PropertyKey, unknown>)[key];
    const copied =
      typeof key === "string" && isSecretKey(key) ? maskSecretValue(val) : copyRedacted(val, text, seen);
    // defineProperty, not assignment: a JSON key named "__proto__" must stay a plain field.
    Object.defineProperty(out, typeof key === "string" ? text(key) : key, {
      value: copied,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

/** {@link copyRedacted} of a plain object: its own enumerable string keys, then its symbols. */
function copyPlainObject(v: Record<string, unknown>, nullProto: boolean, text: (s: string) => string, seen: WeakMap<object, unknown>): object {
  const out: Record<string, unknown> = nullProto ? (Object.create(null) as Record<string, unknown>) : {};
  seen.set(v, out);
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const val = v[key];
    const copied = isSecretKey(key) ? maskSecretValue(val) : copyRedacted(val, text, seen);
    const safeKey = text(key);
    // A JSON key named "__proto__" must stay a plain field, not set the copy's prototype.
    if (safeKey === "__proto__") Object.defineProperty(out, safeKey, { value: copied, writable: true, enumerable: true, configurable: true });
    else out[safeKey] = copied;
  }
  for (const symbol of Object.getOwnPropertySymbols(v)) {
    if (!Object.prototype.propertyIsEnumerable.call(v, symbol)) continue;
    (out as Record<symbol, unknown>)[symbol] = copyRedacted((v as Record<symbol, unknown>)[symbol], text, seen);
  }
  return out;
}

let defaultRedactor: Redactor | undefined;

/** The process-wide redactor, built on first use from `process.env`. */
export function getDefaultRedactor(): Redactor {
  defaultRedactor ??= createRedactor({ env: process.env });
  return defaultRedactor;
}

/** {@link Redactor.redactText} of the process-wide redactor (secrets from `process.env`). */
export function redactText(s: string): string {
  return getDefaultRedactor().redactText(s);
}

/** {@link Redactor.redactValue} of the process-wide redactor (secrets from `process.env`). */
export function redactValue<T>(v: T): T {
  return getDefaultRedactor().redactValue(v);
}
