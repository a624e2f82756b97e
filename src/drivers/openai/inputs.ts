/**
 * A run's inputs as parts of its user message: images natively (base64, sent as data URLs),
 * text-like files as text parts naming the file, other files (PDF) as file parts, and audio as
 * input audio (Chat Completions only, when the config declares the model takes it).
 */
import { readFile } from "node:fs/promises";
import type { InputKindCapability, ResolvedInput } from "../../driver/types.js";
import type { ContentPart } from "./conversation.js";

export const IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** Files read into the prompt as text. */
const TEXT_FILE_TYPES: readonly string[] = ["text/*", "application/json", "application/xml", "application/yaml", "application/x-yaml", "application/toml", "application/javascript", "application/x-sh"];
/** Files sent as file parts. */
const BINARY_FILE_TYPES: readonly string[] = ["application/pdf"];
export const FILE_MEDIA_TYPES: readonly string[] = [...TEXT_FILE_TYPES, ...BINARY_FILE_TYPES];
export const AUDIO_MEDIA_TYPES: readonly string[] = ["audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp3"];

/** The input capabilities a driver with this audio setting declares. */
export function inputCapabilities(audio: boolean): Record<"image" | "file" | "audio", InputKindCapability> {
  return {
    image: { modes: ["native"], mediaTypes: [...IMAGE_MEDIA_TYPES] },
    file: { modes: ["native"], mediaTypes: [...FILE_MEDIA_TYPES] },
    audio: audio ? { modes: ["native"], mediaTypes: [...AUDIO_MEDIA_TYPES] } : { modes: [] },
  };
}

function isTextFile(mediaType: string): boolean {
  return mediaType.startsWith("text/") || TEXT_FILE_TYPES.includes(mediaType);
}

async function inputPart(input: ResolvedInput): Promise<ContentPart> {
  const bytes = await readFile(input.localPath);
  if (input.kind === "image") return { type: "image", mediaType: input.mediaType, data: bytes.toString("base64") };
  if (input.kind === "audio") return { type: "audio", format: /mpeg|mp3/.test(input.mediaType) ? "mp3" : "wav", data: bytes.toString("base64") };
  if (isTextFile(input.mediaType)) return { type: "text", text: `<file name=${JSON.stringify(input.name)} media-type=${JSON.stringify(input.mediaType)}>\n${bytes.toString("utf8")}\n</file>` };
  return { type: "file", mediaType: input.mediaType, name: input.name, data: bytes.toString("base64") };
}

/** The prompt's user message content: the text first, then each input in order. */
export async function promptContent(prompt: string, inputs: readonly ResolvedInput[]): Promise<ContentPart[]> {
  const parts: ContentPart[] = [{ type: "text", text: prompt }];
  for (const input of inputs) parts.push(await inputPart(input));
  return parts;
}
