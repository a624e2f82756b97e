/**
 * Images of a recorded session: kept when their bytes are inline base64 of a type the driver
 * sends and within the stored conversation's media limit; otherwise a short placeholder the model
 * reads instead (an image by URL or by a local path, a file id, an unsupported type, or one too
 * large). A placeholder never names the URL or path.
 */
import type { ContentPart } from "../conversation.js";
import { STORED_MEDIA_MAX } from "../conversation-store.js";
import { IMAGE_MEDIA_TYPES } from "../inputs.js";

/** Media of the recorded session: how many images were kept, and how many media parts became placeholders. */
export interface MediaCounts {
  kept: number;
  replaced: number;
}

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,(.*)$/is;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class ImportedMedia {
  readonly counts: MediaCounts = { kept: 0, replaced: 0 };

  /** A base64 image as the driver keeps it, or a placeholder part. */
  image(mediaType: string, data: string): ContentPart {
    const type = mediaType.toLowerCase();
    if (!IMAGE_MEDIA_TYPES.includes(type)) return this.placeholder(`an image of type ${type.slice(0, 40)}`);
    if (data.length > STORED_MEDIA_MAX) return this.placeholder(`an image of ${data.length} base64 characters, over the limit`);
    if (!BASE64.test(data)) return this.placeholder("an image whose bytes are not valid base64");
    this.counts.kept++;
    return { type: "image", mediaType: type, data };
  }

  /** An image given as a URL: kept when it is a base64 data URL, else a placeholder. */
  imageUrl(url: string): ContentPart {
    const match = DATA_URL.exec(url);
    if (match === null) return this.placeholder("an image by reference (not inline)");
    return this.image(match[1]!, match[2]!);
  }

  /** The text the model reads where something of the recorded session could not be brought over. */
  placeholder(what: string): ContentPart {
    return { type: "text", text: this.replaced(what) };
  }

  /** The same note as plain text (inside a tool result). */
  replaced(what: string): string {
    this.counts.replaced++;
    return `[${what} was in the recorded session; it is not part of the imported conversation]`;
  }
}
