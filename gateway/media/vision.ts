/**
 * Images for the agent: attached natively when the turn's model sees images
 * (a base64 data: URL content part), otherwise described first by the
 * auxiliary `vision` model, whose description goes into the user text. Images
 * are sent as they are — no resizing library: providers shrink large images
 * themselves, and what is too big for that is described instead.
 */
import { readFile, stat } from "node:fs/promises";
import type { Logger } from "pino";
import type { InboundMedia } from "../../adapters/types.js";
import type { AuxiliaryClient } from "../../agent/providers/auxiliary.js";
import { supportsVision } from "../../agent/providers/catalog.js";
import type { Config } from "../../config/index.js";
import { type ImageInfo, sniffImage } from "./image-info.js";
import { MEDIA_TEXT, megabytes } from "./notes.js";

const MiB = 1024 * 1024;

export const IMAGE_LIMITS = {
  /** One natively attached image: 5 MB once base64-encoded, Anthropic's per-image limit. */
  nativeBytes: 3.75 * MiB,
  /** All natively attached images of one turn together (requests stay far below 32 MB); the rest are described. */
  nativeTurnBytes: 12 * MiB,
  /** One image sent to the description model: 20 MB base64, OpenAI's per-image limit. */
  describeBytes: 15 * MiB,
  /** Anthropic refuses images over 8000 px a side (and shrinks anything over ~1568 px itself). */
  maxSidePx: 8000,
} as const;

const DESCRIBE_PROMPT =
  "Describe this image in thorough detail for someone who cannot see it: every piece of text (verbatim), code, numbers, " +
  "tables and charts, objects, people, layout and colours. Describe only what is visible; do not speculate.";

/** A readable image, ready to attach or describe. */
export interface LoadedImage {
  readonly media: InboundMedia;
  readonly bytes: number;
  readonly info: ImageInfo;
  readonly dataUrl: string;
}

export interface VisionDeps {
  readonly config: Config;
  /** Absent when no model provider is configured. */
  readonly auxiliary?: AuxiliaryClient;
  /** The model main turns use right now (a fallback's, after a switch). */
  activeModel(): string;
  readonly logger?: Logger;
}

export class Vision {
  constructor(private readonly deps: VisionDeps) {}

  /** Whether the turn's model (null: the active main model) takes images natively; `model.vision` overrides the family table. */
  nativeFor(model: string | null): boolean {
    const setting = this.deps.config.model.vision;
    return setting === "auto" ? supportsVision(model ?? this.deps.activeModel()) : setting;
  }

  /** Whether an image fits a native attachment on its own (the turn budget is the caller's). */
  fitsNative(img: LoadedImage): boolean {
    const { width = 0, height = 0 } = img.info;
    return img.bytes <= IMAGE_LIMITS.nativeBytes && Math.max(width, height) <= IMAGE_LIMITS.maxSidePx;
  }

  /** Reads and identifies an image; a note says why when it cannot be used at all. */
  async load(media: InboundMedia, signal: AbortSignal): Promise<LoadedImage | { readonly note: string }> {
    const size = await stat(media.path).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) return { note: MEDIA_TEXT.imageNotAnalysed(media.path, "the file is missing from the cache") };
    if (size > IMAGE_LIMITS.describeBytes)
      return { note: MEDIA_TEXT.imageNotAnalysed(media.path, `it is ${megabytes(size)}, over the ${megabytes(IMAGE_LIMITS.describeBytes)} limit for images`) };
    let data: Buffer;
    try {
      data = await readFile(media.path, { signal });
    } catch (err) {
      return {
        note: MEDIA_TEXT.imageNotAnalysed(media.path, signal.aborted ? "the turn was stopped" : `the file could not be read: ${(err as Error).message}`),
      };
    }
    const info = sniffImage(data);
    if (!info) return { note: MEDIA_TEXT.imageNotAnalysed(media.path, "it is not a JPEG, PNG, GIF or WebP image") };
    return { media, bytes: data.length, info, dataUrl: `data:${info.mediaType};base64,${data.toString("base64")}` };
  }

  /** The description note for an image, or a note saying why there is none. Never throws. */
  async describe(img: LoadedImage, signal: AbortSignal): Promise<string> {
    const why = this.cannotDescribe();
    if (why) return MEDIA_TEXT.imageNotAnalysed(img.media.path, why);
    const aux = this.deps.auxiliary as AuxiliaryClient;
    const res = await aux.complete(
      "vision",
      [
        {
          role: "user",
          content: [
            { type: "text", text: DESCRIBE_PROMPT },
            { type: "image_url", image_url: { url: img.dataUrl } },
          ],
        },
      ],
      signal,
    );
    if ("error" in res) {
      this.deps.logger?.warn({ reason: res.error.reason, path: img.media.path }, `image description failed: ${res.error.message}`);
      return MEDIA_TEXT.imageNotAnalysed(img.media.path, `the image model failed: ${res.error.message.slice(0, 200)}`);
    }
    if (!res.text.trim()) return MEDIA_TEXT.imageNotAnalysed(img.media.path, "the image model returned no description");
    return MEDIA_TEXT.imageDescribed(res.text, img.media.path);
  }

  /**
   * Without its own `auxiliary.vision` target the description runs on the main
   * model, which is pointless when that model cannot see images either.
   */
  private cannotDescribe(): string | null {
    if (!this.deps.auxiliary) return "no model provider is configured";
    const aux = this.deps.config.auxiliary.vision;
    const ownTarget = Boolean(aux.provider || aux.model || aux.base_url || aux.api_key);
    if (ownTarget || this.nativeFor(null)) return null;
    return "the model cannot see images and no image model is set under auxiliary.vision";
  }
}
