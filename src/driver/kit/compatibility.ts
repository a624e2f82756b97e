/**
 * Building blocks of a driver's `compatibility()`: the captured settings that decide whether a
 * stored thread can continue, as readable values. A thread must survive operations — rotating a
 * key, moving the model server, reinstalling the CLI elsewhere — so credentials, endpoints and
 * paths that only locate the same provider never enter it; what is left is shown to the host
 * when it differs (see `ThreadIncompatibleError`).
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { isSecretEnvName } from "../../redact/redact.js";

/** Longest readable value kept as it is; a longer one is cut and names its length and digest. */
export const COMPATIBILITY_VALUE_MAX = 160;

/** The value shown for a variable the driver's `env` removes from the child (`undefined`). */
export const REMOVED_VALUE = "(removed)";

/** First 12 hex digits of the sha256 of `text`: enough to tell two long values apart. */
export function shortDigest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/**
 * `text` bounded to {@link COMPATIBILITY_VALUE_MAX} characters. A cut value keeps its head and
 * its end (where a setting appended last, such as a model argument, shows) and names its full
 * length and a digest of the whole, so two values that differ only in the middle still differ.
 */
export function boundedValue(text: string, max = COMPATIBILITY_VALUE_MAX): string {
  if (text.length <= max) return text;
  const note = ` (${text.length} chars, sha256 ${shortDigest(text)})`;
  const room = Math.max(0, max - note.length - 3);
  const end = Math.floor(room / 3);
  return `${text.slice(0, room - end)} … ${text.slice(text.length - end)}${note}`;
}

/** Names of variables that locate things or reach a server: they never change the conversation. */
const LOCATION_OR_CONNECTION =
  /^(?:PATH|HOME|USERPROFILE|TMPDIR|TEMP|TMP|SHELL|TERM|LANG|LANGUAGE|LC_[A-Z_]+|XDG_[A-Z_]+|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|NO_PROXY)$|(?:^|_)(?:URL|URI|BASE_URL|ENDPOINT|HOST|PORT|PROXY|HOME|DIR|PATH|CA_CERTIFICATE|CERT)$/;

/**
 * Whether a child variable stays out of thread compatibility: a credential (a secret-looking
 * name, or one of `named`, such as the provider's `apiKeyEnv`), an endpoint or proxy
 * (`*_BASE_URL`, `*_PROXY`, `*_PORT`, ...), or a location (`PATH`, `HOME`, `*_HOME`, `*_DIR`, ...).
 */
export function isOperationalEnvName(name: string, named: readonly (string | undefined)[] = []): boolean {
  if (named.includes(name) || isSecretEnvName(name)) return true;
  return LOCATION_OR_CONNECTION.test(name.toUpperCase());
}

/**
 * The child variables that do count, as `env.<NAME>` entries (a removed variable reads
 * {@link REMOVED_VALUE}). Credentials, endpoints and locations are left out (see
 * {@link isOperationalEnvName}; `named` adds names the driver knows to be such, e.g. the
 * provider's `apiKeyEnv`), and so is any variable holding one of `secrets`, whatever its name.
 */
export function compatibleEnv(
  env: Readonly<Record<string, string | undefined>> | undefined,
  named: readonly (string | undefined)[] = [],
  secrets: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env ?? {}).sort()) {
    const value = env![name];
    if (isOperationalEnvName(name, named) || (value !== undefined && secrets.includes(value))) continue;
    out[`env.${name}`] = value === undefined ? REMOVED_VALUE : value;
  }
  return out;
}

/** `scheme://...` anywhere in an argument: an endpoint. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`,;]*/gi;

/** Whether `command` is a Node executable, whose first argument is then the program's script. */
export function isNodeCommand(command: string): boolean {
  return command === process.execPath || /^node(?:\.exe)?$/i.test(basename(command));
}

/**
 * Extra command-line arguments as one readable value (space-separated, quoted where an argument
 * holds a space), or undefined when there are none. An endpoint inside an argument
 * (`base_url="http://…"`) reads `<url>`, so moving the model server changes nothing. Core
 * redacts known secrets and secret-shaped flags from it.
 */
export function compatibleArgs(args: readonly string[] | undefined): string | undefined {
  if (args === undefined || args.length === 0) return undefined;
  return args.map((arg) => readableArg(arg.replace(URL_IN_TEXT, "<url>"))).join(" ");
}

/** An argument as a shell would need it: bare when it can be, else JSON-quoted. */
function readableArg(arg: string): string {
  return /^[\w@%+=:,./<>"-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
