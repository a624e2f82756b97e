/**
 * Model and effort applied through the session's config options (`session/set_config_option`),
 * each confirmed by reading the option back: a value the agent does not offer, or does not
 * confirm, fails the run before delivery instead of running on a model nobody asked for.
 */
import type { NewSessionResponse, SessionConfigOption, SetSessionConfigOptionResponse } from "@agentclientprotocol/sdk/unstable";
import type { RunRequest } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { claim, list, open, openAnyVariant, openEach, readFrame, str, type AnyVariant, type Lenient } from "../../driver/lens.js";

/**
 * The session's model state as ACP's earlier unstable `session/new` answer carried it
 * (`models.currentModelId`); agents that predate config options still send it.
 */
export interface LegacySessionModels {
  models?: { currentModelId?: string };
}

/** A session answer (`session/new`, `/load`, `/resume`, `/fork`) as the schema and the earlier drafts type it. */
export type SessionAnswerFrame = NewSessionResponse & LegacySessionModels;
/** A session answer as the config options read it. */
export type SessionAnswer = Lenient<SessionAnswerFrame>;

/** A config option, read whatever its `type` (a select's options are read even when the tag is missing). */
export type ConfigOption = Lenient<AnyVariant<SessionConfigOption>>;

/** The objects of a config options list (anything else in it is skipped). */
function configOptions(options: unknown): ConfigOption[] {
  return list(claim<SessionConfigOption[]>(options)).flatMap((option) => openAnyVariant(option) ?? []);
}

/** Every value an option offers, flat or grouped. */
export function optionValues(option: ConfigOption): string[] {
  const values: string[] = [];
  for (const element of list(option.options)) {
    const entry = openAnyVariant(element);
    const value = str(entry?.value);
    if (value !== undefined) values.push(value);
    for (const inner of openEach(entry?.options)) {
      const innerValue = str(inner.value);
      if (innerValue !== undefined) values.push(innerValue);
    }
  }
  return values;
}

/** The option of `category`, else the first whose id is one of `ids` (agents that send no category). */
export function findOption(options: readonly ConfigOption[], category: string, ids: readonly string[]): ConfigOption | undefined {
  return options.find((o) => str(o.category) === category) ?? options.find((o) => ids.includes(String(o.id)));
}

/** One setting requested of the session. */
interface Setting {
  label: string;
  category: string;
  ids: readonly string[];
  value: string;
}

/** The session's config options as last reported, by the session answer, a set answer or a `config_option_update`. */
export class SessionConfigOptions {
  #options: ConfigOption[] = [];
  #legacyModelId: string | undefined;

  /** Replaces the list when `options` is one (a session answer, a set answer or a `config_option_update` carries the whole list). */
  replace(options: unknown): void {
    if (Array.isArray(options)) this.#options = configOptions(options);
  }

  /** Takes what the session answer reports: its options (when it sends them) and its legacy model state. */
  adopt(answer: SessionAnswer): void {
    this.replace(answer.configOptions);
    this.#legacyModelId = str(open(answer.models)?.currentModelId);
  }

  /**
   * Applies the request's model and effort. `set` sends `session/set_config_option`; `drained`
   * resolves once updates that arrived meanwhile were mapped (a `config_option_update` may carry
   * the readback).
   */
  async apply(request: Pick<RunRequest, "model" | "effort">, set: (configId: string, value: string) => Promise<unknown>, drained: () => Promise<void>): Promise<void> {
    if (request.model !== undefined) await this.#applyOne({ label: "model", category: "model", ids: ["model"], value: request.model }, set, drained);
    if (request.effort !== undefined) {
      await this.#applyOne({ label: "effort", category: "thought_level", ids: ["reasoning_effort", "thought_level", "effort"], value: request.effort }, set, drained);
    }
  }

  async #applyOne({ label, category, ids, value }: Setting, set: (configId: string, value: string) => Promise<unknown>, drained: () => Promise<void>): Promise<void> {
    const option = findOption(this.#options, category, ids);
    if (option === undefined) {
      if (category === "model" && this.#legacyModelId === value) return;
      throw new ProviderError(`the agent offers no ${label} session config option (category "${category}"); ${label} "${value}" cannot be applied`, {
        code: "config_option_unsupported",
        phase: "before_delivery",
      });
    }
    const configId = String(option.id);
    if (str(option.currentValue) === value) return;
    const offered = optionValues(option);
    if (!offered.includes(value)) {
      throw new ProviderError(`${label} "${value}" is not offered by the agent's "${configId}" option (offered: ${offered.join(", ") || "none"})`, {
        code: "config_value_unavailable",
        phase: "before_delivery",
      });
    }
    const answer = readFrame<SetSessionConfigOptionResponse>(await set(configId, value));
    if (answer !== undefined) this.replace(answer.configOptions);
    await drained();
    const readback = findOption(this.#options, category, ids);
    if (str(readback?.currentValue) !== value) {
      throw new ProviderError(`the agent did not confirm ${label} "${value}" on its "${configId}" option (current: ${String(readback?.currentValue)})`, {
        code: "config_value_rejected",
        phase: "before_delivery",
      });
    }
  }
}
