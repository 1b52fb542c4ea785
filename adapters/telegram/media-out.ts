/**
 * Files out: photos, documents, voice, audio and video as multipart uploads
 * (grammy's InputFile), several images as albums (sendMediaGroup, ≤10 each).
 * A missing file is an error before any upload, never a silent "sent".
 * Captions are formatted in the bot's parse mode, and sent plain if Telegram
 * rejects the markup, like message text.
 */
import { basename } from "node:path";
import { InputFile } from "grammy";
import type { Message } from "grammy/types";
import { filesExist, type SendPart } from "../common/send-parts.js";
import type { ChatRef, OutboundMedia } from "../types.js";
import type { TelegramParseMode } from "./format-dialect.js";
import { gs } from "./grammy-signal.js";
import { TELEGRAM_MAX_CAPTION } from "./options.js";
import { type CallOptions, chatParams, type EncodeText, type SendExtra, sendExtras, type TelegramOutbound } from "./outbound.js";
import type { TelegramRenderer } from "./render.js";

const ALBUM_MAX = 10;

/**
 * A message's text as the caption of its first file (the first image, which
 * leads an album, else the first file), when the text fits one caption and
 * that file has none of its own: one message instead of a text and a file.
 * Null when it does not fit; the text then goes as messages before the files.
 */
export function withTextAsCaption(renderer: TelegramRenderer, text: string, media: readonly OutboundMedia[]): OutboundMedia[] | null {
  if (!text.trim() || media.length === 0) return null;
  const first = Math.max(
    0,
    media.findIndex((m) => m.kind === "image"),
  );
  if (media[first]?.caption?.trim() || renderer.chunks(text, TELEGRAM_MAX_CAPTION).length !== 1) return null;
  return media.map((m, i) => (i === first ? { ...m, caption: text } : m));
}

/**
 * Every attachment as parts of a send (see adapters/common/send-parts.ts), in order: first a check that every
 * file exists (so a missing file fails before any upload; it posts nothing), then one part per album and per
 * single upload. `extra` (reply, buttons) goes on the first/last single upload.
 */
export function mediaParts(
  out: TelegramOutbound,
  renderer: TelegramRenderer,
  chat: ChatRef,
  media: readonly OutboundMedia[],
  extra: SendExtra,
  call: CallOptions = {},
): SendPart[] {
  if (media.length === 0) return [];
  const images = media.filter((m) => m.kind === "image");
  const others = media.filter((m) => m.kind !== "image");
  const albums = images.length >= 2 ? batches(images, ALBUM_MAX) : [];
  const singles = images.length === 1 ? [...images, ...others] : others;
  return [
    filesExist(media),
    ...albums.map(
      (album): SendPart =>
        () =>
          sendAlbum(out, renderer, chat, album, call),
    ),
    ...singles.map((m, i): SendPart => {
      const last = i === singles.length - 1;
      const mine: SendExtra = {
        ...(i === 0 && !albums.length ? { replyTo: extra.replyTo } : {}),
        ...(last ? { buttons: extra.buttons } : {}),
        silent: extra.silent,
      };
      return async () => [await sendOne(out, renderer, chat, m, mine, call)];
    }),
  ];
}

async function sendOne(
  out: TelegramOutbound,
  renderer: TelegramRenderer,
  chat: ChatRef,
  m: OutboundMedia,
  extra: SendExtra,
  call: CallOptions,
): Promise<string> {
  const head = { ...chatParams(chat), ...sendExtras(extra) };
  const text = captionText(renderer, m.caption);
  const method = METHOD[m.kind];
  const sent = await out.callFormatted(
    chat,
    method,
    // A fresh InputFile per attempt: a retried upload re-reads the file.
    (encode, s): Promise<Message> => {
      const file = new InputFile(m.path, basename(m.path));
      const base = { ...head, ...caption(encode, text) };
      switch (m.kind) {
        case "image":
          return out.api.raw.sendPhoto({ ...base, photo: file }, gs(s));
        case "voice":
          return out.api.raw.sendVoice({ ...base, voice: file }, gs(s));
        case "audio":
          return out.api.raw.sendAudio({ ...base, audio: file }, gs(s));
        case "video":
          return out.api.raw.sendVideo({ ...base, video: file }, gs(s));
        case "document":
          return out.api.raw.sendDocument({ ...base, document: file }, gs(s));
      }
    },
    call,
  );
  return String(sent.message_id);
}

async function sendAlbum(
  out: TelegramOutbound,
  renderer: TelegramRenderer,
  chat: ChatRef,
  images: readonly OutboundMedia[],
  call: CallOptions,
): Promise<string[]> {
  const texts = images.map((m) => captionText(renderer, m.caption));
  const sent = await out.callFormatted(
    chat,
    "sendMediaGroup",
    (encode, s) => {
      const items = images.map((m, i) => ({ type: "photo" as const, media: new InputFile(m.path, basename(m.path)), ...caption(encode, texts[i]) }));
      return out.api.raw.sendMediaGroup({ ...chatParams(chat), media: items }, gs(s));
    },
    call,
  );
  return sent.map((msg) => String(msg.message_id));
}

const METHOD: Record<OutboundMedia["kind"], string> = {
  image: "sendPhoto",
  voice: "sendVoice",
  audio: "sendAudio",
  video: "sendVideo",
  document: "sendDocument",
};

/** The formatted caption, cut to Telegram's caption limit; undefined when there is none. */
function captionText(renderer: TelegramRenderer, markdown: string | undefined): string | undefined {
  return markdown?.trim() ? renderer.single(markdown, TELEGRAM_MAX_CAPTION) : undefined;
}

/** The caption fields of a request, in the encoding of this attempt (formatted, or plain after a rejection). */
function caption(encode: EncodeText, text: string | undefined): { caption?: string; parse_mode?: TelegramParseMode } {
  if (text === undefined) return {};
  const { text: body, ...mode } = encode(text);
  return { caption: body, ...mode };
}

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
