/**
 * What one `codex app-server` process holds besides itself: the agent's host-tools endpoint (one
 * per process, registered with every thread the process starts) and the directory its skills were
 * materialized into. Both live exactly as long as the process: released when it retires or exits.
 */
import type { HostToolsEndpoint } from "../../driver/types.js";
import type { OwnedDirectory } from "../../input/process-directory.js";

export class ProcessResources {
  #hostTools: HostToolsEndpoint | undefined;
  #skillsDir: OwnedDirectory | undefined;
  #released: Promise<void> | undefined;

  /** The process's host-tools endpoint, if it has one. */
  get hostTools(): HostToolsEndpoint | undefined {
    return this.#hostTools;
  }

  /** Takes ownership of `endpoint`; closes it at once when the process already retired. */
  adoptHostTools(endpoint: HostToolsEndpoint): void {
    if (this.#released !== undefined) {
      void endpoint.close().catch(() => undefined);
      return;
    }
    this.#hostTools = endpoint;
  }

  /** Takes ownership of a skills directory (removed with the process). */
  adoptSkillsDir(dir: OwnedDirectory): void {
    if (this.#released !== undefined) {
      void dir.remove();
      return;
    }
    this.#skillsDir = dir;
  }

  /** Closes the endpoint and removes the skills directory. Idempotent; never rejects. */
  release(): Promise<void> {
    this.#released ??= Promise.all([
      this.#hostTools?.close().catch(() => undefined),
      this.#skillsDir?.remove(),
    ]).then(() => undefined);
    return this.#released;
  }
}
