/**
 * Idempotent egress. A reply triggered by an inbound event gets a key derived
 * from (event, purpose, index); the key is claimed in the store before the
 * send and marked sent after it, so a reply re-run after a crash is sent at
 * most once. Transient platform errors are retried with backoff, honouring
 * the platform's retry-after; a reply in several parts resumes after the
 * parts already posted. A send that may have been carried out (it timed
 * out after it was sent) is never retried and keeps its key: the chat may
 * already show it, and no platform lets us send "only if not sent yet". If
 * that was one part of several, the parts after it still go out.
 */
import type { Logger } from "pino";
import { AdapterSendError, type Adapter, type ChatRef, type SendOptions, type SentMessage, type StreamHandle } from "../../adapters/types.js";
import type { Clock } from "../../agent/types.js";
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

const MAX_RETRIES = 2;
const MAX_RETRY_AFTER_MS = 30_000;

export class Egress {
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
    const { store, clock, metrics } = this.deps;
    if (key) {
      const claim = store.claimOutbound(key, { platform: chat.platform, chatId: chat.chatId, at: clock.now() });
      if (claim.state !== "new") {
        metrics?.send(chat.platform, "skipped");
        return { status: "skipped" };
      }
    }
    return this.sendParts(chat, opts, key, { skipParts: 0, posted: [], unsure: null }, signal);
  }

  /**
   * A claimed send's attempts, from part `from.skipParts` on (the parts before it posted `from.posted`, or may
   * have: `from.unsure`). A retry resumes after the parts a failed attempt posted (never posts them twice); a
   * part that may have been posted is not sent again, but the parts after it still go out — the reply is then
   * whole, or short of that one part, instead of cut off there.
   */
  private async sendParts(chat: ChatRef, opts: SendOptions, key: string | null, from: Resume, signal?: AbortSignal): Promise<SendOutcome> {
    const { store, clock, metrics } = this.deps;
    const posted = [...from.posted];
    let { skipParts, unsure } = from;
    const attempt = async (): Promise<SentMessage> => {
      try {
        const sent = await this.adapter(chat.platform).send(chat, skipParts ? { ...opts, skipParts } : opts, signal);
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
          const sent = await this.withRetry(chat, attempt, signal);
          if (key) store.markOutboundSent(key, sent.messageIds, clock.now());
          if (unsure) return this.failure(chat, key, unsure, "a part of a send", posted);
          metrics?.send(chat.platform, "sent");
          return { status: "sent", sent };
        } catch (err) {
          if (!goesOnPast(err)) throw err;
          unsure ??= err;
          skipParts += 1;
          this.warnGoingOn(chat, key, err, skipParts);
        }
      }
    } catch (error) {
      return this.failure(chat, key, error, "send", posted);
    }
  }

  private warnGoingOn(chat: ChatRef, key: string | null, err: AdapterSendError, part: number): void {
    this.deps.logger.warn({ err, platform: chat.platform, chatId: chat.chatId, key, part }, "a part of a send may have been delivered: going on with the parts after it");
  }

  /**
   * Delivers `text` by finishing a streamed reply, under the same at-most-once
   * key as a send. finish() may only run once and waits out rate limits
   * itself, so it is not retried here.
   */
  async finishStream(chat: ChatRef, handle: StreamHandle, text: string, key: string, answers: readonly string[], signal?: AbortSignal): Promise<SendOutcome> {
    const { store, clock, metrics } = this.deps;
    const claim = store.claimOutbound(key, { platform: chat.platform, chatId: chat.chatId, at: clock.now() });
    if (claim.state !== "new") {
      metrics?.send(chat.platform, "skipped");
      return { status: "skipped" };
    }
    try {
      const sent = await handle.finish(text, signal, answers);
      store.markOutboundSent(key, sent.messageIds, clock.now());
      metrics?.send(chat.platform, "sent");
      return { status: "sent", sent };
    } catch (error) {
      if (goesOnPast(error) && error.delivered) {
        // The stream's parts are the ones a send of the text posts (StreamHandle.finish): the rest goes out as a send.
        const skipParts = error.delivered.parts + 1;
        this.warnGoingOn(chat, key, error, skipParts);
        return this.sendParts(chat, { text, answers }, key, { skipParts, posted: error.delivered.messageIds, unsure: error }, signal);
      }
      return this.failure(chat, key, error, "streamed reply", error instanceof AdapterSendError ? (error.delivered?.messageIds ?? []) : []);
    }
  }

  /**
   * A send that ended in `error`: its key is freed for a later try, unless the send may have been
   * delivered, or `posted` some of its parts (a later try would post them again: the key is kept,
   * marked sent with what was posted).
   */
  private failure(chat: ChatRef, key: string | null, error: unknown, what: string, posted: readonly string[]): SendOutcome {
    const { store, metrics, logger, clock } = this.deps;
    const where = { err: error, platform: chat.platform, chatId: chat.chatId, key };
    if (error instanceof AdapterSendError && error.kind === "uncertain") {
      metrics?.send(chat.platform, "uncertain");
      logger.warn(where, `${what} may have been delivered: not retried`);
      return { status: "uncertain", error };
    }
    metrics?.send(chat.platform, "failed");
    const failed = { ...where, code: "HGW_ERR_DELIVERY_FAILED" };
    if (posted.length > 0) {
      if (key) store.markOutboundSent(key, posted, clock.now());
      logger.warn({ ...failed, posted: posted.length }, `${what} failed after part of it was posted: not sent again`);
      return { status: "failed", error, posted };
    }
    if (key) store.releaseOutbound(key);
    logger.warn(failed, `${what} failed`);
    return { status: "failed", error };
  }

  /** Runs one outbound platform call with the retry policy; rethrows the final error. */
  async withRetry<T>(chat: ChatRef, call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const wait = retryDelay(err, attempt);
        if (wait === null || signal?.aborted) throw err;
        this.deps.logger.debug({ platform: chat.platform, attempt, wait }, "retrying send");
        await this.deps.clock.sleep(wait, signal);
      }
    }
  }
}

/** Milliseconds to wait before retrying, or null when the error is final. */
export function retryDelay(err: unknown, attempt: number): number | null {
  if (!(err instanceof AdapterSendError) || attempt >= MAX_RETRIES) return null;
  if (err.kind === "rate_limit") return Math.min(err.retryAfterMs ?? 1000, MAX_RETRY_AFTER_MS);
  if (err.kind === "network" || err.kind === "server") return 2000 * 2 ** attempt + Math.floor(Math.random() * 1000);
  return null;
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
