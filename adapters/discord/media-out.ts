/**
 * Files out: attachments of up to ten files per message, the files'
 * captions as the message's text. A missing file is an error before any
 * upload, never a silent "sent".
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { RawFile } from "discord.js";
import { filesExist, type SendPart } from "../common/send-parts.js";
import type { OutboundMedia } from "../types.js";
import { DISCORD_MAX_FILES } from "./options.js";
import type { MessageBody } from "./outbound.js";
import { renderSingle } from "./render.js";

/** Posts one message with files; resolves with its id. */
export type PostFiles = (body: MessageBody, files: readonly RawFile[]) => Promise<string>;

/**
 * Every attachment as parts of a send (see adapters/common/send-parts.ts): first a check that every file exists
 * (it posts nothing), then one part per message of up to ten files. `extra` (reply, buttons) goes on the first/last.
 */
export function mediaParts(post: PostFiles, media: readonly OutboundMedia[], extra: Pick<MessageBody, "replyTo" | "buttons" | "silent">): SendPart[] {
  if (media.length === 0) return [];
  const batches: OutboundMedia[][] = [];
  for (let i = 0; i < media.length; i += DISCORD_MAX_FILES) batches.push(media.slice(i, i + DISCORD_MAX_FILES));
  return [
    filesExist(media),
    ...batches.map(
      (batch, i): SendPart =>
        async () => {
          const captions = batch.map((m) => m.caption?.trim()).filter((c): c is string => Boolean(c));
          const body: MessageBody = {
            ...(captions.length ? { content: renderSingle(captions.join("\n")) } : {}),
            ...(i === 0 && extra.replyTo ? { replyTo: extra.replyTo } : {}),
            ...(i === batches.length - 1 && extra.buttons ? { buttons: extra.buttons } : {}),
            ...(extra.silent ? { silent: true } : {}),
          };
          // Read per attempt: a retried upload reads the file again.
          const files = await Promise.all(batch.map(async (m): Promise<RawFile> => ({ name: basename(m.path), data: await readFile(m.path) })));
          return [await post(body, files)];
        },
    ),
  ];
}
