/**
 * Idempotent egress. A reply triggered by an inbound event gets a key derived
 * from (event, purpose, index); the key is marked "maybe sent" in the store
 * as the reply's first platform call leaves (see DispatchMark) and marked
 * sent after it, so a reply re-run after a crash is sent at most once, and a
 * reply that never left the adapter's queue is sent then. Egress never
 * retries a send: the adapter is the one layer that retries a platform call
 * (it alone knows the platform's retry_after and which failures may be
 * repeated), so a failure that reaches here is final. A send that may have
 * been carried out (it timed out after it was sent) keeps its key: the chat
 * may already show it, and no platform lets us send "only if not sent yet".
 * If that was one part of several, the parts after it still go out.
 */
import type { Logger } from "pino";
import { type Adapter, AdapterSendError, type ChatRef, type SendOptions, type SentMessage, type StreamHandle } from "../../adapters/types.js";
import type { Clock } from "../../agent/types.js";
import { DispatchMark } from "./dispatch-mark.js";
import type { RuntimeMetrics, RuntimeStore } from "./ports.js";

export type SendOutcome =
  | { readonly status: "sent"; readonly sent: SentMessage }
  /** Already sent (or possibly sent) under this key before. */
  | { readonly status: "skipped" }
  /** `posted`: the messages of a reply in several parts that did go out before it failed for good. */
  | { readonly status: "failed"; readonly error: unknown; readonly posted?: readonly string[] }
  /** It may have been delivered (see AdapterSendError "uncertain"): not retried, and its key stays claimed. */
  | { readonly status: "uncertain"; readonly error: unknown };

export interface EgressDeps {
  readonly adapters: ReadonlyMap<string, Adapter>;
  readonly store: RuntimeStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
}

export class Egress {
  /** Keys being sent by this run: a second send of one is skipped like one sent before. */
  private readonly sending = new Set<string>();

  constructor(private readonly deps: EgressDeps) {}

  platforms(): string[] {
    return [...this.deps.adapters.keys()];
  }

  hasAdapter(platform: string): boolean {
    return this.deps.adapters.has(platform);
  }

  adapter(platform: string): Adapter {
    const a = this.deps.adapters.get(platform);
    if (!a) throw new Error(`no adapter for platform ${platform}`);
    return a;
  }

  /** Sends `opts` to `chat`; with a key, at most once per key across restarts. */
  async send(chat: ChatRef, opts: SendOptions, key: string | null, signal?: AbortSignal): Promise<SendOutcome> {
    const start: Resume = { skipParts: 0, posted: [], unsure: null };
    if (!key) return this.sendParts(chat, opts, null, start, signal);
    const mark = this.begin(chat, key);
    if (!mark) return this.skipped(chat);
    try {
      return await this.sendParts(chat, opts, mark, start, signal);
    } finally {
      this.sending.delete(key);
    }
  }

  /**
   * Counts the reply under `key` as maybe sent, without sending it: something that may show it already left for
   * the platform and never came back (`why`). Logged and counted like a send that may have been delivered; the
   * key is marked, so the reply is never sent. Skipped when the key was sent, or is being sent, already.
   */
  presumeSent(chat: ChatRef, key: string, why: string): SendOutcome {
    const mark = this.begin(chat, key);
    if (!mark) return this.skipped(chat);
    try {
      mark.handOver();
    } finally {
      this.sending.delete(key);
    }
    const error = new Error(why);
    this.deps.metrics?.send(chat.platform, "uncertain");
    this.deps.logger.warn({ err: error, platform: chat.platform, chatId: chat.chatId, key }, "a reply may already be in the chat: not sent");
    return { status: "uncertain", error };
  }

  /** A mark for sending `key`, or null when it was sent (or may have been) before, or is being sent now. */
  private begin(chat: ChatRef, key: string): DispatchMark | null {
    if (this.sending.has(key) || this.deps.store.outboundState(key).state !== "new") return null;
    this.sending.add(key);
    return new DispatchMark(key, chat, this.deps);
  }

  private skipped(chat: ChatRef): SendOutcome {
    this.deps.metrics?.send(chat.platform, "skipped");
    return { status: "skipped" };
  }

  /** What the adapter gets of `mark`: the observer, when it reports its calls; otherwise the reply is marked now. */
  private dispatchFor(chat: ChatRef, mark: DispatchMark): DispatchMark | undefined {
    if (this.adapter(chat.platform).capabilities.reportsDispatch) return mark;
    mark.handOver();
    return undefined;
  }

  /**
   * A claimed send, from part `from.skipParts` on (the parts before it posted `from.posted`, or may have:
   * `from.unsure`). A part that may have been posted is not sent again, but the parts after it still go out —
   * the reply is then whole, or short of that one part, instead of cut off there. A part that failed for good
   * ends the send; the parts posted before it are reported, never posted twice.
   */
  private async sendParts(chat: ChatRef, opts: SendOptions, mark: DispatchMark | null, from: Resume, signal?: AbortSignal): Promise<SendOutcome> {
    const { metrics } = this.deps;
    const posted = [...from.posted];
    let { skipParts, unsure } = from;
    const sendRest = async (): Promise<SentMessage> => {
      try {
        const dispatch = mark ? this.dispatchFor(chat, mark) : undefined;
        const sent = await this.adapter(chat.platform).send(chat, { ...opts, ...(skipParts ? { skipParts } : {}), ...(dispatch ? { dispatch } : {}) }, signal);
        return { messageIds: [...posted, ...sent.messageIds] };
      } catch (err) {
        if (err instanceof AdapterSendError && err.delivered) {
          skipParts += err.delivered.parts;
          posted.push(...err.delivered.messageIds);
        }
        throw err;
      }
    };
    try {
      for (;;) {
        try {
          const sent = await sendRest();
          mark?.sent(sent.messageIds);
          if (unsure) return this.failure(chat, mark, unsure, "a part of a send", posted);
          metrics?.send(chat.platform, "sent");
          return { status: "sent", sent };
        } catch (err) {
          if (!goesOnPast(err)) throw err;
          unsure ??= err;
          skipParts += 1;
          this.warnGoingOn(chat, mark, err, skipParts);
        }
      }
    } catch (error) {
      return this.failure(chat, mark, error, "send", posted);
    }
  }

  private warnGoingOn(chat: ChatRef, mark: DispatchMark | null, err: AdapterSendError, part: number): void {
    this.deps.logger.warn(
      { err, platform: chat.platform, chatId: chat.chatId, key: mark?.key ?? null, part },
      "a part of a send may have been delivered: going on with the parts after it",
    );
  }

  /**
   * Delivers `text` by finishing a streamed reply, under the same at-most-once
   * key as a send. finish() may only run once and waits out rate limits
   * itself, so it is not retried here.
   */
  async finishStream(chat: ChatRef, handle: StreamHandle, text: string, key: string, answers: readonly string[], signal?: AbortSignal): Promise<SendOutcome> {
    const mark = this.begin(chat, key);
    if (!mark) return this.skipped(chat);
    try {
      return await this.finishMarked(chat, handle, text, mark, answers, signal);
    } finally {
      this.sending.delete(key);
    }
  }

  private async finishMarked(
    chat: ChatRef,
    handle: StreamHandle,
    text: string,
    mark: DispatchMark,
    answers: readonly string[],
    signal?: AbortSignal,
  ): Promise<SendOutcome> {
    try {
      const sent = await handle.finish(text, signal, answers, this.dispatchFor(chat, mark));
      mark.sent(sent.messageIds);
      this.deps.metrics?.send(chat.platform, "sent");
      return { status: "sent", sent };
    } catch (error) {
      if (goesOnPast(error) && error.delivered) {
        // The stream's parts are the ones a send of the text posts (StreamHandle.finish): the rest goes out as a send.
        const skipParts = error.delivered.parts + 1;
        this.warnGoingOn(chat, mark, error, skipParts);
        return this.sendParts(chat, { text, answers }, mark, { skipParts, posted: error.delivered.messageIds, unsure: error }, signal);
      }
      return this.failure(chat, mark, error, "streamed reply", error instanceof AdapterSendError ? (error.delivered?.messageIds ?? []) : []);
    }
  }

  /**
   * A send that ended in `error`: its key is freed for a later try, unless the send may have been
   * delivered, or `posted` some of its parts (a later try would post them again: the key is kept,
   * marked sent with what was posted).
   */
  private failure(chat: ChatRef, mark: DispatchMark | null, error: unknown, what: string, posted: readonly string[]): SendOutcome {
    const { metrics, logger } = this.deps;
    const where = { err: error, platform: chat.platform, chatId: chat.chatId, key: mark?.key ?? null };
    if (error instanceof AdapterSendError && error.kind === "uncertain") {
      metrics?.send(chat.platform, "uncertain");
      logger.warn(where, `${what} may have been delivered: not retried`);
      return { status: "uncertain", error };
    }
    metrics?.send(chat.platform, "failed");
    const failed = { ...where, code: "HGW_ERR_DELIVERY_FAILED" };
    if (posted.length > 0) {
      mark?.sent(posted);
      logger.warn({ ...failed, posted: posted.length }, `${what} failed after part of it was posted: not sent again`);
      return { status: "failed", error, posted };
    }
    mark?.release();
    logger.warn(failed, `${what} failed`);
    return { status: "failed", error };
  }
}

/**
 * Builds the idempotency keys of the replies one inbound event causes.
 * Each purpose counts separately, so a time-dependent notice can never shift
 * the index of the final reply when the turn runs again after a crash.
 */
export class ReplyKeys {
  private readonly counters = new Map<string, number>();
  constructor(private readonly base: string) {}

  static forEvent(platform: string, eventId: string): ReplyKeys {
    return new ReplyKeys(`${platform}:${eventId}`);
  }

  next(purpose: "final" | "progress" | "notice" | "ack" | "command" | "pairing" | "error"): string {
    const n = this.counters.get(purpose) ?? 0;
    this.counters.set(purpose, n + 1);
    return `${this.base}:${purpose}:${n}`;
  }
}

/** Where a send resumes: parts already posted (their ids), and a part before them that may have been. */
interface Resume {
  readonly skipParts: number;
  readonly posted: readonly string[];
  readonly unsure: AdapterSendError | null;
}

/** A part that may have been posted, with parts after it: those still go out. */
function goesOnPast(err: unknown): err is AdapterSendError {
  return err instanceof AdapterSendError && err.kind === "uncertain" && (err.delivered?.after ?? 0) > 0;
}
