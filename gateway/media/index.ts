/**
 * Inbound media for the agent: vision and speech-to-text behind the runtime's
 * MediaPreparer port. The composition root calls `createMedia` once.
 */
import type { Logger } from "pino";
import type { ProviderRuntime } from "../../agent/providers/index.js";
import type { Config } from "../../config/index.js";
import type { MediaPreparer } from "../runtime/ports.js";
import { createMediaPreparer } from "./preparer.js";
import { createTranscriber } from "./stt.js";

export { sniffImage } from "./image-info.js";
export { MEDIA_TEXT } from "./notes.js";
export { BURST_WINDOW_MS, createMediaPreparer, type MediaDeps } from "./preparer.js";
export { createReplyAttachments, OUTBOUND_MAX_BYTES, REPLY_MEDIA_TEXT, type ReplyMediaDeps } from "./reply-media.js";
export { extractReplyTags, type MediaRef, type ReplyTags } from "./reply-tags.js";
export { createTranscriber, type Transcriber } from "./stt.js";
export { IMAGE_LIMITS } from "./vision.js";

/** `providers` is null when no model provider is configured (images then cannot be described). */
export function createMedia(config: Config, providers: ProviderRuntime | null, logger: Logger): MediaPreparer {
  return createMediaPreparer({
    config,
    ...(providers ? { auxiliary: providers.auxiliary } : {}),
    activeModel: () => providers?.activeTarget().model ?? config.model.model,
    transcriber: createTranscriber(config.stt),
    logger,
  });
}
