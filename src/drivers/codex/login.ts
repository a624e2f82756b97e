/**
 * A run on a Codex whose model provider needs an OpenAI account it does not have is refused
 * before the thread is requested: the turn could only fail at the model endpoint (or retry it
 * until the startup deadline), after the prompt was handed over. `account/read` says so offline
 * (asked once per process: a prepared standby's inspection answer is reused).
 */
import { AuthRequiredError } from "../../errors/index.js";
import type { TurnChannel } from "./channel.js";
import { CODEX_LOGIN } from "./errors.js";
import { mapAuth } from "./inspect.js";

export async function refuseWithoutLogin(channel: TurnChannel): Promise<void> {
  // A prepared standby's inspection already read it on this very process.
  let answer: unknown = channel.connection.account;
  try {
    answer ??= await channel.guarded("account/read", {});
  } catch (error) {
    // A server without the method (or one that cannot tell) is not refused; a dead process or a cancel is the run's failure.
    if (!channel.connection.alive || channel.signal.aborted) throw error;
    return;
  }
  const auth = mapAuth(answer);
  if ("required" in auth && auth.required) {
    throw new AuthRequiredError("Codex is not signed in and its model provider requires an OpenAI account", { remedy: CODEX_LOGIN });
  }
}
