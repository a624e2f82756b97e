/**
 * What a run asks of Codex, built from the run request before any process starts: the thread
 * settings (`thread/start`, `thread/resume`, `thread/fork`) and the `turn/start` params. A
 * request Codex cannot honour is refused here, before delivery.
 */
import type { RunRequest } from "../../driver/types.js";
import type { Policy } from "../../driver/vocabulary.js";
import { ConfigError, ProviderError } from "../../errors/index.js";
import type { JsonValue } from "./protocol/serde_json/JsonValue.js";
import type { AskForApproval } from "./protocol/v2/AskForApproval.js";
import type { SandboxMode } from "./protocol/v2/SandboxMode.js";
import type { TurnStartParams } from "./protocol/v2/TurnStartParams.js";
import type { UserInput } from "./protocol/v2/UserInput.js";

const SANDBOX: Record<NonNullable<Policy["sandbox"]>, SandboxMode> = {
  "read-only": "read-only",
  "workspace-write": "workspace-write",
  "full-access": "danger-full-access",
};

const APPROVAL: Record<Exclude<NonNullable<Policy["approval"]>, "on-failure">, AskForApproval> = {
  never: "never",
  "on-request": "on-request",
  untrusted: "untrusted",
};

/** The thread settings a run sends with `thread/start`, `thread/resume` or `thread/fork`. */
export interface ThreadSettings {
  cwd: string;
  model?: string;
  sandbox?: SandboxMode;
  approvalPolicy?: AskForApproval;
  developerInstructions?: string;
  /** Config overrides of the thread (dotted keys): the network switch, the MCP servers (mcp.ts). */
  config?: Record<string, JsonValue>;
}

/** Thread settings from the effective call options; undefined members are left to Codex's config. */
export function threadSettings(request: Pick<RunRequest, "model" | "policy" | "workspace" | "resources">): ThreadSettings {
  const settings: ThreadSettings = { cwd: request.workspace };
  if (request.model !== undefined) settings.model = request.model;
  const { sandbox, approval, network } = request.policy;
  if (sandbox !== undefined) settings.sandbox = SANDBOX[sandbox];
  if (approval !== undefined) {
    if (approval === "on-failure") {
      throw new ConfigError('codex: approval policy "on-failure" is not offered by codex app-server (use never, on-request or untrusted)');
    }
    settings.approvalPolicy = APPROVAL[approval];
  }
  if (network !== undefined) settings.config = { "sandbox_workspace_write.network_access": network };
  if (request.resources.instructions !== undefined && request.resources.instructions !== "") {
    settings.developerInstructions = request.resources.instructions;
  }
  return settings;
}

/** `turn/start` input: the prompt, then each image as a native `localImage`. */
export function turnInput(request: Pick<RunRequest, "prompt" | "inputs">): UserInput[] {
  const input: UserInput[] = [{ type: "text", text: request.prompt, text_elements: [] }];
  for (const item of request.inputs) {
    if (item.kind === "image" && item.deliveryMode === "native") input.push({ type: "localImage", path: item.localPath });
    else {
      throw new ProviderError(`codex: ${item.kind} inputs delivered as ${item.deliveryMode} are not supported`, {
        code: "input_mode_unsupported",
        phase: "before_delivery",
      });
    }
  }
  return input;
}

/** `turn/start` params on the bound thread. */
export function turnStartParams(threadId: string, input: UserInput[], request: Pick<RunRequest, "effort" | "outputSchema">): TurnStartParams {
  const params: TurnStartParams = { threadId, input };
  // Core folds the config's default under the call's (Driver.defaults): this is the effective one.
  if (request.effort !== undefined) params.effort = request.effort;
  if (request.outputSchema !== undefined) params.outputSchema = request.outputSchema as TurnStartParams["outputSchema"];
  return params;
}
