/**
 * A directory a provider process owns (its MCP config, its skills). It is made like a run's input
 * directory: 0700 under the OS temp directory, its name marking the host process, and registered
 * for the host's exit, so it is removed however the host ends: when the process retires, when
 * the host exits or dies of a terminating signal (the registry), and after a SIGKILL by the next
 * start's sweep (`sweepStaleInputDirectories`).
 */
import { mkdtemp, rm } from "node:fs/promises";

import { registerInputDirectory, unregisterInputDirectory } from "./registry.js";
import { ownedDirectoryPrefix, sweepStaleInputDirectoriesOnce } from "./stale.js";

export interface OwnedDirectory {
  readonly path: string;
  /** Removes the directory. Idempotent; never rejects (a failed removal is retried at exit). */
  remove(): Promise<void>;
}

/** Creates a directory one provider process owns; the caller removes it when the process retires. */
export async function createOwnedDirectory(): Promise<OwnedDirectory> {
  void sweepStaleInputDirectoriesOnce();
  // mkdtemp creates the directory 0700, readable by this user only.
  const path = await mkdtemp(ownedDirectoryPrefix());
  registerInputDirectory(path);
  let removing: Promise<void> | undefined;
  const remove = (): Promise<void> =>
    (removing ??= rm(path, { recursive: true, force: true }).then(
      () => unregisterInputDirectory(path),
      () => undefined,
    ));
  return { path, remove };
}
