/**
 * Edit-based streaming: one message shows the reply as it grows, edited at
 * most once per `intervalMs`, latest text wins. The rule that prevents the
 * "half message plus duplicate final" bug of Hermes Agent's gateway:
 *
 * - The first preview edit/send that meets a rate limit (or any failure) stops
 *   previews for good; later `update()`s only remember the text.
 * - `finish()` waits for the preview call in flight, then hands the final
 *   text and the preview's message id (if one exists) to `finalize`, which
 *   edits that message into the final text (waiting out `retry_after`), or, if
 *   it can no longer be edited, deletes it and sends the final text once.
 *   So the chat ends with exactly one copy of the final text.
 *
 * Platform-neutral (Telegram, Discord and Slack use it): the platform calls come in as `StreamOps`.
 */

import { type Clock, startTimer, systemClock } from "../../config/timing/index.js";
import { AdapterSendError, type DispatchObserver, type PreviewDispatchObserver, type SentMessage, type StreamHandle, type StreamOptions } from "../types.js";
import { type SendPart, sendInParts } from "./send-parts.js";

export interface StreamOps {
  /** Sends a preview message; should fail fast on a rate limit. Resolves with its id. `dispatch`: told about its request. */
  sendPreview(text: string, signal: AbortSignal, dispatch?: DispatchObserver): Promise<string>;
  /** Whether the preview of `text` shows all of it (it fits in one message, not cut short with "…"). */
  showsWhole(text: string): boolean;
  /** Replaces the preview's text; should fail fast on a rate limit. */
  editPreview(messageId: string, text: string, signal: AbortSignal): Promise<void>;
  /** Delivers the final text, reusing `previewId` when given; may wait out rate limits. `dispatch`: told about its calls. */
  finalize(previewId: string | undefined, text: string, signal?: AbortSignal, dispatch?: DispatchObserver): Promise<SentMessage>;
  /** Removes the preview message (used when the reply turned stale). */
  deletePreview?(messageId: string, signal?: AbortSignal): Promise<void>;
}

export interface EditStreamOptions {
  readonly intervalMs: number;
  /** No preview before the text has been growing this long: a reply finished sooner goes out whole, in one message. */
  readonly firstPreviewAfterMs?: number;
  readonly clock?: Clock;
  /** Told why previews stopped. Must not throw. */
  readonly onPreviewStopped?: (err: unknown) => void;
  /** Told the preview message's id once it was sent. Must not throw. */
  readonly onPreviewShown?: (messageId: string) => void;
  /** Told about the request that posts the preview message (StreamOptions.previewDispatch). */
  readonly previewDispatch?: PreviewDispatchObserver;
}

export type { StreamHandle };

/** What a chat adapter's edit streams are paced by and logged to: its platform's `streaming` config, clock and logger. */
export interface ChatStreamSetting {
  readonly streaming: { readonly edit_interval_ms: number; readonly first_preview_ms: number };
  readonly clock: Clock;
  readonly logger: { info(obj: object, msg: string): void };
}

/** A stream into `chatId`: paced by the platform's config, stopped previews logged for the chat, the caller's preview observers passed on. */
export function chatStreamOptions(setting: ChatStreamSetting, chatId: string, opts: StreamOptions): EditStreamOptions {
  return {
    intervalMs: setting.streaming.edit_interval_ms,
    firstPreviewAfterMs: setting.streaming.first_preview_ms,
    clock: setting.clock,
    onPreviewStopped: (err) => setting.logger.info({ err, chatId }, "stream previews stopped"),
    ...(opts.onPreviewShown ? { onPreviewShown: opts.onPreviewShown } : {}),
    ...(opts.previewDispatch ? { previewDispatch: opts.previewDispatch } : {}),
  };
}

export class EditStream implements StreamHandle {
  private readonly clock: Clock;
  private readonly abort = new AbortController();
  private latest = "";
  private shown = "";
  private previewId: string | undefined;
  private inFlight: Promise<void> | null = null;
  private lastOpAt: number;
  private cancelTimer: (() => void) | null = null;
  private stopped = false;
  private finished = false;
  /** finish() resolved: the preview message is the delivered reply now. */
  private delivered = false;

  constructor(
    private readonly ops: StreamOps,
    private readonly opts: EditStreamOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    // Pretend an operation happened so the first preview waits `firstPreviewAfterMs` from now.
    this.lastOpAt = this.clock.now() + (opts.firstPreviewAfterMs ?? 0) - opts.intervalMs;
  }

  update(text: string): void {
    if (this.finished) return;
    this.latest = text;
    this.schedule();
  }

  async finish(text: string, signal?: AbortSignal, _answers?: readonly string[], dispatch?: DispatchObserver): Promise<SentMessage> {
    this.finished = true;
    this.stopPreviews();
    await this.inFlight;
    const sent = await this.ops.finalize(this.previewId, text, signal, dispatch);
    this.delivered = true;
    return sent;
  }

  cancel(): void {
    this.finished = true;
    this.stopPreviews();
    this.abort.abort();
  }

  async discard(signal?: AbortSignal): Promise<void> {
    if (this.delivered) return;
    this.finished = true;
    this.stopPreviews();
    // Let a preview send in flight land, so its message id is known and can be removed.
    await this.inFlight;
    this.abort.abort();
    if (this.previewId !== undefined && this.ops.deletePreview) await this.ops.deletePreview(this.previewId, signal);
  }

  async settlePreview(): Promise<string | undefined> {
    this.stopPreviews();
    await this.inFlight;
    return this.previewId;
  }

  /** Previews the latest text now, or arms one timer for when the interval allows. */
  private schedule(): void {
    if (this.stopped || this.inFlight || this.cancelTimer || this.latest.trim() === "" || this.latest === this.shown) return;
    const wait = this.lastOpAt + this.opts.intervalMs - this.clock.now();
    if (wait > 0) {
      this.cancelTimer = startTimer(this.clock, wait, () => {
        this.cancelTimer = null;
        this.schedule();
      });
      return;
    }
    this.inFlight = this.preview(this.latest).finally(() => {
      this.inFlight = null;
      this.schedule();
    });
  }

  private async preview(text: string): Promise<void> {
    this.lastOpAt = this.clock.now();
    try {
      if (this.previewId === undefined) {
        this.previewId = await this.ops.sendPreview(text, this.abort.signal, this.postingReport(text));
        this.opts.onPreviewShown?.(this.previewId);
      } else await this.ops.editPreview(this.previewId, text, this.abort.signal);
      this.shown = text;
    } catch (err) {
      // finish() may have aborted us; otherwise previews stop for good and finish() reconciles.
      if (!this.abort.signal.aborted) this.opts.onPreviewStopped?.(err);
      this.stopped = true;
    }
  }

  /** Reports the request posting the preview of `text` to `previewDispatch`, with what it carries. */
  private postingReport(text: string): DispatchObserver | undefined {
    const observer = this.opts.previewDispatch;
    if (!observer) return undefined;
    return { started: () => observer.started({ text, whole: this.ops.showsWhole(text) }), ended: (posted) => observer.ended(posted) };
  }

  private stopPreviews(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
  }
}

/** The platform calls that turn a stream's preview into its final text (see `finalizeIntoPreview`). */
export interface FinalizeOps {
  /** Replaces the preview's text with a formatted part; rejects with kind `rejected` when it can no longer be edited. */
  edit(previewId: string, part: string): Promise<void>;
  /** Posts a formatted part as a new message; resolves with its id. */
  post(part: string): Promise<string>;
  remove(previewId: string): Promise<void>;
  /** Sends the final text from scratch (a stream without a usable preview). */
  sendWhole(): Promise<SentMessage>;
  /** Told when a preview that could not be edited could not be removed either. Must not throw. */
  onRemoveFailed(err: unknown): void;
}

/**
 * Delivers a streamed reply's final text, given its formatted parts: the
 * preview becomes the first part and the others follow as new messages (so
 * a later part's failure reports the preview as posted); with no preview,
 * or one that can no longer be edited (deleted, too old: removed if it can
 * be), the text is sent once from scratch. An empty final text removes the preview.
 */
export async function finalizeIntoPreview(previewId: string | undefined, parts: readonly string[], ops: FinalizeOps): Promise<SentMessage> {
  if (previewId === undefined) return ops.sendWhole();
  const [first, ...rest] = parts;
  if (first === undefined) {
    await ops.remove(previewId);
    return { messageIds: [] };
  }
  try {
    await ops.edit(previewId, first);
  } catch (err) {
    if (!(err instanceof AdapterSendError && err.kind === "rejected")) throw err;
    await ops.remove(previewId).catch((e: unknown) => ops.onRemoveFailed(e));
    return ops.sendWhole();
  }
  const posted: SendPart = async () => [previewId];
  return sendInParts([
    posted,
    ...rest.map(
      (part): SendPart =>
        async () => [await ops.post(part)],
    ),
  ]);
}
