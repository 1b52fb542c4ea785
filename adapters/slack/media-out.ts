/**
 * Files out, the way the Slack SDK's `uploadV2` does it: for each file,
 * `files.getUploadURLExternal` (name and length), the bytes posted to the
 * URL it gives, then `files.completeUploadExternal`, which shares the file
 * in the channel (and thread) with its caption as the comment. A missing
 * file is an error before any upload. Each file is one part of the send
 * (adapters/common/send-parts.ts); completing an upload is what posts, so
 * only that call can be `uncertain`, and only that call is reported to the
 * send's `dispatch`: an upload not completed shows nothing in the chat.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { filesExist, type SendPart } from "../common/send-parts.js";
import { AdapterSendError, type ChatRef, type OutboundMedia } from "../types.js";
import type { CallOptions, SlackOutbound } from "./outbound.js";

export interface UploadDeps {
  readonly out: SlackOutbound;
  /** fetch over the adapter's connection pool. */
  readonly fetch: typeof globalThis.fetch;
  /** A caption in mrkdwn. */
  readonly caption: (markdown: string) => string;
}

/** A check that every file exists (posts nothing), then one part per file. */
export function uploadParts(deps: UploadDeps, chat: ChatRef, media: readonly OutboundMedia[], call: Pick<CallOptions, "signal" | "dispatch"> = {}): SendPart[] {
  if (media.length === 0) return [];
  return [
    filesExist(media),
    ...media.map(
      (m): SendPart =>
        () =>
          uploadOne(deps, chat, m, call),
    ),
  ];
}

/** Resolves with no message ids: Slack shares the file in the background and does not say which message shows it. */
async function uploadOne(deps: UploadDeps, chat: ChatRef, m: OutboundMedia, call: Pick<CallOptions, "signal" | "dispatch">): Promise<string[]> {
  const data = await readFile(m.path);
  const filename = basename(m.path);
  const { signal } = call;
  // Reported to `call.dispatch` only for completeUploadExternal, the call that posts (SlackOutbound.call).
  const target = await deps.out.call(chat, "files.getUploadURLExternal", (c) => c.files.getUploadURLExternal({ filename, length: data.length }), call);
  if (!target.upload_url || !target.file_id) throw new AdapterSendError("Slack files.getUploadURLExternal answered without an upload URL.", "rejected");
  await postBytes(deps.fetch, target.upload_url, data, filename, signal);
  const comment = m.caption?.trim() ? deps.caption(m.caption) : undefined;
  await deps.out.call(
    chat,
    "files.completeUploadExternal",
    (c) =>
      c.files.completeUploadExternal({
        files: [{ id: target.file_id as string, title: filename }],
        channel_id: chat.chatId,
        ...(chat.threadId ? { thread_ts: chat.threadId } : {}),
        ...(comment ? { initial_comment: comment } : {}),
      } as Parameters<typeof c.files.completeUploadExternal>[0]),
    call,
  );
  return [];
}

/** The upload URL takes the bytes as the body; a refusal is final, network and server trouble retryable (nothing is shared before completion). */
async function postBytes(fetchFn: typeof globalThis.fetch, url: string, data: Buffer, filename: string, signal?: AbortSignal): Promise<void> {
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: "POST",
      body: new Uint8Array(data),
      headers: { "content-type": "application/octet-stream" },
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    throw new AdapterSendError(`Uploading ${filename} to Slack failed: ${err instanceof Error ? err.message : String(err)}`, "network", undefined, {
      cause: err,
    });
  }
  await res.body?.cancel();
  if (res.ok) return;
  throw new AdapterSendError(`Uploading ${filename} to Slack failed: HTTP ${res.status}`, res.status >= 500 || res.status === 429 ? "server" : "rejected");
}
