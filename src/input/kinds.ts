// The kinds of per-run input and how a driver may deliver them. A leaf: the SPI names these in
// its descriptor, and the input pipeline checks against them, so both stand on this file.

export type InputKind = "image" | "file" | "audio";
export type DeliveryMode = "native" | "workspace_reference";

export const INPUT_KINDS: readonly InputKind[] = Object.freeze(["image", "file", "audio"]);
export const DELIVERY_MODES: readonly DeliveryMode[] = Object.freeze(["native", "workspace_reference"]);
