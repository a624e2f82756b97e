/**
 * The run's prompt and inputs as ACP content blocks: the text first, then each input as the agent
 * declared it can take it. An input the agent cannot take fails before anything is created.
 */
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import type { RunRequest } from "../../driver/types.js";
import { InputError } from "../../input/errors.js";
import type { AgentCaps } from "./capabilities.js";

/** Prompt blocks: the text, then each input as the agent declared it can take it. Throws before delivery. */
export async function promptBlocks(request: Pick<RunRequest, "prompt" | "inputs">, caps: Pick<AgentCaps, "image" | "audio">, driverId: string): Promise<ContentBlock[]> {
  const blocks: ContentBlock[] = [{ type: "text", text: request.prompt }];
  for (const [index, input] of request.inputs.entries()) {
    if (input.kind === "image" || input.kind === "audio") {
      const advertised = input.kind === "image" ? caps.image : caps.audio;
      if (input.deliveryMode !== "native" || !advertised) {
        throw new InputError(
          "input_mode_unsupported",
          `the agent did not advertise promptCapabilities.${input.kind} in initialize; ${input.kind} inputs cannot be delivered`,
          { index, kind: input.kind, mediaType: input.mediaType, driver: driverId },
        );
      }
      const data = (await readFile(input.localPath)).toString("base64");
      blocks.push({ type: input.kind, data, mimeType: input.mediaType });
    } else if (input.deliveryMode === "workspace_reference") {
      blocks.push({ type: "resource_link", uri: pathToFileURL(input.localPath).href, name: input.name, mimeType: input.mediaType, size: input.size });
    } else {
      throw new InputError("input_mode_unsupported", "files are delivered as workspace references (resource_link) only", {
        index,
        kind: input.kind,
        mediaType: input.mediaType,
        driver: driverId,
      });
    }
  }
  return blocks;
}
