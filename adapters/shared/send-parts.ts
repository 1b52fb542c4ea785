/**
 * Sends a message that takes several platform calls (text chunks, albums,
 * files) part by part. When a part fails after earlier ones were posted, the
 * error says so (AdapterSendError.delivered), so the gateway's retry resumes
 * after them (SendOptions.skipParts) instead of posting them again. A part
 * that may have been posted (`uncertain`) with parts after it says how many
 * (delivered.after), so the gateway can go on with those without it.
 */
import { AdapterSendError, type SentMessage } from "../types.js";

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
      throw new AdapterSendError(err.message, err.kind, err.retryAfterMs, { cause: err, delivered: { parts: i - skip, messageIds: ids, ...(after > 0 ? { after } : {}) } });
    }
  }
  return { messageIds: ids };
}
