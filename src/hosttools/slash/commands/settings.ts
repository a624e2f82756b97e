/**
 * `/model` and `/effort`: show the setting of the next runs, or change it through the session
 * (the session passes it as the run's `model` / `effort`; the driver applies it the provider's way,
 * which the output names — see reconfigure.ts).
 */
import type { ModelInfo } from "../../../inspect/types.js";
import type { SettingView } from "../messages.js";
import { reconfigureMechanism } from "../reconfigure.js";
import { runSettings } from "../session-settings.js";
import { done, failure, refused, usage, type CommandHandler, type CommandOutcome, type SlashContext } from "./context.js";

const RESET = "--reset";

/** What the inspection says about models: the offered list and the defaults, when observed. */
interface ProviderModels {
  models?: ModelInfo[];
  defaultModel?: string;
  defaultEffort?: string;
}

async function providerModels(context: SlashContext): Promise<ProviderModels> {
  const inspection = await context.inspection();
  if (inspection instanceof Error) return {};
  const models = inspection.models.status === "observed" ? inspection.models.value : undefined;
  const configured = inspection.configuration.status === "observed" ? inspection.configuration.value : undefined;
  const defaultModel = configured?.model ?? models?.find((m) => m.isDefault)?.id;
  const defaultEffort = configured?.effort ?? models?.find((m) => m.id === defaultModel)?.defaultEffort;
  return {
    ...(models ? { models } : {}),
    ...(defaultModel !== undefined ? { defaultModel } : {}),
    ...(defaultEffort !== undefined ? { defaultEffort } : {}),
  };
}

function view(value: string | undefined, fallback: string | undefined): SettingView {
  if (value !== undefined) return { value, source: "session" };
  return fallback !== undefined ? { value: fallback, source: "default" } : { source: "default" };
}

/** The efforts the model in effect offers, when the provider lists them. */
function effortsOf(provider: ProviderModels, model: string | undefined): string[] | undefined {
  const entry = provider.models?.find((m) => m.id === model);
  return entry?.efforts && entry.efforts.length > 0 ? entry.efforts.map((e) => e.id) : undefined;
}

export const model: CommandHandler = async (context, line) => {
  if (line.args.length > 1) return usage(context, line);
  const session = context.current();
  const provider = await providerModels(context);
  const offered = provider.models?.filter((m) => m.hidden !== true).map((m) => m.id);
  if (line.args.length === 0) return done(context.messages.settingShown("model", view(runSettings(session).model, provider.defaultModel), offered));
  const value = line.args[0] === RESET ? null : line.args[0]!;
  const notes: string[] = [];
  // Providers accept more than they list (aliases, custom endpoints): an unlisted model is a note, not a refusal.
  if (value !== null && offered !== undefined && offered.length > 0 && !provider.models!.some((m) => m.id === value)) {
    notes.push(context.messages.modelNotListed(value, offered));
  }
  return change(context, "model", value, notes);
};

export const effort: CommandHandler = async (context, line) => {
  if (line.args.length > 1) return usage(context, line);
  const session = context.current();
  const provider = await providerModels(context);
  const settings = runSettings(session);
  const modelInEffect = settings.model ?? provider.defaultModel;
  const offered = effortsOf(provider, modelInEffect);
  if (line.args.length === 0) return done(context.messages.settingShown("effort", view(settings.effort, provider.defaultEffort), offered));
  const value = line.args[0] === RESET ? null : line.args[0]!;
  // Efforts are a short closed list per model: a level the model does not offer is refused before any run.
  if (value !== null && offered !== undefined && !offered.includes(value)) {
    return refused("usage", context.messages.effortNotOffered(value, modelInEffect!, offered));
  }
  return change(context, "effort", value, []);
};

async function change(context: SlashContext, setting: "model" | "effort", value: string | null, notes: string[]): Promise<CommandOutcome> {
  const session = context.current();
  const runInFlight = session.status().inFlight !== undefined;
  try {
    await session.configure({ [setting]: value });
  } catch (error) {
    return failure(context, setting, error);
  }
  const how = context.messages.mechanism(reconfigureMechanism(context.agent.driver));
  return done([context.messages.settingChanged(setting, value ?? undefined, how, runInFlight), ...notes].join("\n"));
}
