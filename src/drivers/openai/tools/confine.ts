/**
 * Workspace confinement of every path a built-in tool touches. A path is resolved against the
 * workspace, then every symbolic link on it is followed (realpath) and the real result must be
 * the workspace or below it: `..` escapes, absolute paths elsewhere, and links pointing out at any
 * component (also a dangling link, or a directory link a new file would be written under) are
 * refused with a message the model sees. The model is told paths relative to the workspace.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path inside the workspace: `real` to operate on, `display` (relative, `/`-separated) to show. */
export interface ConfinedPath {
  real: string;
  display: string;
  /** Whether something exists at `real`. */
  exists: boolean;
}

/** A path refused: `message` is for the model. */
export interface RefusedPath {
  refused: string;
}

/** Links followed on one path before it is refused as a loop (the kernel's ELOOP bound). */
const MAX_LINKS = 40;

/** Whether `path` is `root` or below it (both absolute). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `path` relative to `root` with `/` separators; `.` for the root itself. */
export function displayPath(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === "" ? "." : rel.split(sep).join("/");
}

/** The workspace's real path, or a refusal when it does not exist. */
export async function workspaceRoot(workspace: string): Promise<string | RefusedPath> {
  try {
    return await realpath(workspace);
  } catch {
    return { refused: "the workspace directory does not exist" };
  }
}

/**
 * Resolves `path` (relative to the workspace, or absolute) inside the workspace whose real path
 * is `root`. `workspace` is the path as configured (an absolute path the model was given may use
 * it rather than the real one).
 */
export async function confine(root: string, workspace: string, path: string): Promise<ConfinedPath | RefusedPath> {
  if (path.includes("\0")) return { refused: "the path contains a NUL character" };
  const lexical = isAbsolute(path) ? resolve(path) : resolve(root, path);
  // An absolute path under the configured (non-real) workspace spelling means the same place.
  const configured = resolve(workspace);
  const target = isAbsolute(path) && !isWithin(root, lexical) && isWithin(configured, lexical) ? join(root, relative(configured, lexical)) : lexical;
  if (!isWithin(root, target)) return { refused: outside(path) };
  const real = await followLinks(target, MAX_LINKS);
  if (real === "loop") return { refused: `${path} has too many levels of symbolic links` };
  if (real === "error") return { refused: `${path} cannot be resolved` };
  if (!isWithin(root, real.path)) return { refused: `${outside(path)} (a symbolic link on it points out of the workspace)` };
  return { real: real.path, display: displayPath(root, real.path), exists: real.exists };
}

function outside(path: string): string {
  return `access denied: ${path} is outside the workspace; use a path inside it (relative paths are resolved against the workspace)`;
}

type Followed = { path: string; exists: boolean } | "loop" | "error";

/**
 * The real path of `target`, links followed. When it does not exist, the real path of its
 * deepest existing ancestor joined with the missing rest; a dangling link is followed to where
 * it points, so a write through it is checked at its destination.
 */
async function followLinks(target: string, linksLeft: number): Promise<Followed> {
  try {
    return { path: await realpath(target), exists: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return "loop";
    if (code !== "ENOENT" && code !== "ENOTDIR") return "error";
  }
  const parent = dirname(target);
  if (parent === target) return "error";
  const name = target.slice(parent.length).replace(/^[\\/]+/, "");
  let link: string | undefined;
  try {
    const stat = await lstat(target);
    if (stat.isSymbolicLink()) link = await readlink(target);
    else return "error"; // exists yet realpath failed: a component is not a directory
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") return "error";
  }
  const realParent = await followLinks(parent, linksLeft);
  if (typeof realParent === "string") return realParent;
  if (link === undefined) return { path: join(realParent.path, name), exists: false };
  if (linksLeft <= 0) return "loop";
  const next = await followLinks(resolve(realParent.path, link), linksLeft - 1);
  return typeof next === "string" ? next : { path: next.path, exists: false };
}
