/**
 * Sends a message that takes several platform calls (text chunks, albums,
 * files) part by part. When a part fails after earlier ones were posted, the
 * error says so (AdapterSendError.delivered), so the gateway's retry resumes
 * after them (SendOptions.skipParts) instead of posting them again. A part
 * that may have been posted (`uncertain`) with parts after it says how many
 * (delivered.after), so the gateway can go on with those without it.
 */
import { stat } from "node:fs/promises";
import { AdapterSendError, type OutboundMedia, type SentMessage } from "../types.js";

/** One platform call; resolves with the ids of the messages it posted. */
export type SendPart = () => Promise<readonly string[]>;

/** Runs `parts` in order, skipping the first `skip` (posted by an earlier attempt). */
export async function sendInParts(parts: readonly SendPart[], skip = 0): Promise<SentMessage> {
  const ids: string[] = [];
  for (let i = skip; i < parts.length; i++) {
    try {
      ids.push(...(await (parts[i] as SendPart)()));
    } catch (err) {
      if (!(err instanceof AdapterSendError)) throw err;
      const after = err.kind === "uncertain" ? parts.length - i - 1 : 0;
      if (i === skip && after === 0) throw err;
      throw new AdapterSendError(err.message, err.kind, err.retryAfterMs, {
        cause: err,
        delivered: { parts: i - skip, messageIds: ids, ...(after > 0 ? { after } : {}) },
      });
    }
  }
  return { messageIds: ids };
}

/** A first part that posts nothing: it checks every file is there, so a missing one fails the send before anything is posted. */
export function filesExist(media: readonly OutboundMedia[]): SendPart {
  return async () => {
    await Promise.all(media.map((m) => assertFile(m.path)));
    return [];
  };
}

async function assertFile(path: string): Promise<void> {
  const info = await stat(path).catch((err: unknown) => {
    throw new AdapterSendError(`Cannot send ${path}: the file does not exist or is unreadable.`, "rejected", undefined, { cause: err });
  });
  if (!info.isFile()) throw new AdapterSendError(`Cannot send ${path}: not a regular file.`, "rejected");
}
