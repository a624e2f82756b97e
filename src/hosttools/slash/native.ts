/**
 * The provider's native commands, read once from the Inspection's `commands` panel (or given by
 * the host), and the collisions of portable names with them under the chosen policy.
 */
import type { Agent } from "../../agent/agent.js";
import type { Inspection, NativeCommandInfo } from "../../inspect/types.js";
import type { Session } from "../../session/types.js";
import type { CommandNames } from "./registry.js";
import type { CollisionPolicy, NativeCommandsView, SlashCollision } from "./types.js";

/** A native command's name as typed words are compared: without a leading slash, lowercased. */
export function nativeName(command: NativeCommandInfo): string {
  return command.name.replace(/^\//, "").toLowerCase();
}

/**
 * Reads the agent's inspection once and keeps it until refreshed; concurrent callers share one
 * read. A failed read is not kept: the next caller reads again (a provider that was briefly
 * unreachable does not leave the collision policy blind for good).
 */
export class InspectionCache {
  readonly #agent: Agent;
  #pending: Promise<Inspection | Error> | undefined;

  constructor(agent: Agent) {
    this.#agent = agent;
  }

  /** The inspection, or the error it failed with (never rejects). */
  get(refresh = false): Promise<Inspection | Error> {
    if (refresh || this.#pending === undefined) {
      const pending: Promise<Inspection | Error> = this.#agent.inspect().catch((error: unknown) => {
        if (this.#pending === pending) this.#pending = undefined;
        return error instanceof Error ? error : new Error(String(error));
      });
      this.#pending = pending;
    }
    return this.#pending;
  }
}

/**
 * The native commands as known now: the host's list; else the list the provider last advertised in
 * the session's conversation (ACP agents advertise theirs per session, so an inspection cannot know
 * them); else the inspection's `commands` panel.
 */
export async function readNativeCommands(
  given: readonly NativeCommandInfo[] | undefined,
  session: Session,
  cache: InspectionCache,
  refresh: boolean,
): Promise<NativeCommandsView> {
  if (given !== undefined) return { known: true, source: "host", commands: given.map((c) => ({ ...c })) };
  const advertised = session.status().nativeCommands;
  if (advertised !== undefined) return { known: true, source: "session", commands: advertised };
  const inspection = await cache.get(refresh);
  if (inspection instanceof Error) return { known: false, reason: `inspection failed: ${inspection.message}` };
  const panel = inspection.commands;
  if (panel.status === "observed") return { known: true, source: "inspection", commands: (panel.value ?? []).map((c) => ({ ...c })) };
  return { known: false, reason: panel.reason?.message ?? panel.status };
}

/** What the policy does with a portable word that is also a native command. */
export function resolution(policy: CollisionPolicy): SlashCollision["resolution"] {
  return policy === "native-first" ? "native" : policy === "portable-first" ? "portable" : "refused";
}

/** Every portable name or alias that is also a native command, in presentation order. */
export function collisionsOf(names: CommandNames, native: NativeCommandsView, policy: CollisionPolicy): SlashCollision[] {
  if (!native.known) return [];
  const nativeNames = new Set(native.commands.map(nativeName));
  return names
    .entries()
    .filter(([name]) => nativeNames.has(name))
    .map(([name, command]) => ({ name, command, resolution: resolution(policy) }));
}
