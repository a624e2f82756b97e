/**
 * The user line of a turn: the prompt as a text block, then each input as a native content block
 * (images as `image`, PDFs as `document`, base64). Input bytes go to the CLI's stdin only.
 */
import { readFile } from "node:fs/promises";
import type { ResolvedInput } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import type { ImageMediaType, UserContentBlock, UserLine } from "./wire.js";

/** What a dialect accepts natively, by kind. */
export interface NativeInputs {
  image: readonly string[];
  file: readonly string[];
}

export async function buildUserLine(prompt: string, inputs: readonly ResolvedInput[], accepted: NativeInputs): Promise<UserLine> {
  if (inputs.length === 0) {
    return { type: "user", message: { role: "user", content: [{ type: "text", text: prompt }] }, parent_tool_use_id: null, session_id: "" };
  }
  const blocks: UserContentBlock[] = [{ type: "text", text: prompt }];
  for (const [index, input] of inputs.entries()) {
    const refuse = (what: string): never => {
      throw new ProviderError(`input ${index} (${input.kind}, ${input.mediaType}) ${what}`, {
        code: "input_mode_unsupported",
        phase: "before_delivery",
      });
    };
    if (input.deliveryMode !== "native") refuse("must be delivered natively");
    if (input.kind === "audio") refuse("is not supported");
    const mediaType = input.mediaType.toLowerCase();
    const list = input.kind === "image" ? accepted.image : accepted.file;
    if (!list.includes(mediaType)) refuse("has a media type this provider does not accept natively");
    let data: string;
    try {
      data = (await readFile(input.localPath)).toString("base64");
    } catch {
      // The error would name the path; the message must not.
      throw new ProviderError(`input ${index} (${input.kind}) could not be read`, { code: "input_materialization_failed", phase: "before_delivery" });
    }
    if (input.kind === "image") {
      // `list` only holds Messages API image types (checked above).
      blocks.push({ type: "image", source: { type: "base64", media_type: mediaType as ImageMediaType, data } });
    } else {
      blocks.push({ type: "document", source: { type: "base64", media_type: "application/pdf", data }, title: input.name });
    }
  }
  return { type: "user", message: { role: "user", content: blocks }, parent_tool_use_id: null, session_id: "" };
}
