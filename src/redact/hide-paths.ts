/**
 * Host paths kept out of what a remote client reads. A library error is written for the host's
 * own logs and may name the workspace, a store file or an executable; an answer to a remote
 * client (the attach server's, a bridge's task status) must not tell it where things live on the
 * host.
 */

/** What a path reads as in an answer. */
export const PATH_PLACEHOLDER = "<path>";

/**
 * An absolute path inside free text: a `file:` URL, a POSIX path (a `/` that does not follow a
 * word, `:`, `.` or another `/`, so URLs, `a/b` and `run/session` stay), `~/…`, a drive path or
 * a UNC path. Quotes and whitespace end it.
 */
const ABSOLUTE_PATH = /file:\/\/[^\s"'`]*|(?<![\w.:/~-])~?(?:\/[^\s"'`/]+)+\/?|(?<![\w])[A-Za-z]:[\\/][^\s"'`]*|\\\\[^\s"'`\\]+(?:\\[^\s"'`\\]+)*/g;

/**
 * Punctuation that ends a clause right after a path (`/a/b: x`, `/a, /b.`, `(in /a)`): the path
 * pattern takes it in, but it belongs to the sentence, so it stays after the placeholder.
 */
const TRAILING_PUNCTUATION = /[.,:;!?)\]}]+$/;

/** What is left of a path once its trailing punctuation is put back: a bare root or prefix hides nothing. */
const BARE_ROOT = /^(?:~?\/?|file:\/*|[A-Za-z]:[\\/]?|\\\\)$/;

/** `text` with every absolute path in it replaced by {@link PATH_PLACEHOLDER}; punctuation right after a path is kept. */
export function hidePaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, (path) => {
    const trailing = TRAILING_PUNCTUATION.exec(path)?.[0] ?? "";
    if (trailing === "") return PATH_PLACEHOLDER;
    const bare = path.slice(0, path.length - trailing.length);
    return BARE_ROOT.test(bare) ? path : PATH_PLACEHOLDER + trailing;
  });
}
