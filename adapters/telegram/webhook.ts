/**
 * Webhook transport, framework-agnostic: the gateway mounts `handle` on its
 * HTTP server. Telegram proves itself with the secret it was given in
 * setWebhook (`X-Telegram-Bot-Api-Secret-Token`); anything else gets 401 and
 * is not delivered. We answer 200 only after `sink.deliver()` resolved, so a
 * crash before the commit makes Telegram resend; a delivery failure answers
 * 500 for the same reason. Parts of a client-split message that arrive as
 * separate calls are held for `splitJoinMs` and delivered joined.
 */
import { timingSafeEqual } from "node:crypto";
import type { Update } from "grammy/types";
import type { Logger } from "pino";
import type { HealthTracker } from "../common/health-tracker.js";
import type { Ingress } from "./ingress.js";
import { canJoin, isSplitCandidate } from "./split-join.js";

export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;
export interface WebhookReply {
  readonly status: number;
  readonly body: string;
}
export type WebhookHandler = (headers: WebhookHeaders, body: unknown) => Promise<WebhookReply>;

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";
/** An update is a few KiB of JSON (a message's text is at most 4,096 characters); media come by file id, not inline. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

interface Held {
  readonly updates: Update[];
  readonly waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }>;
  cancelTimer: () => void;
}

export interface WebhookOptions {
  readonly secret: string;
  readonly ingress: Ingress;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly splitJoinMs: number;
}

export class WebhookIngress {
  private readonly held = new Map<string, Held>();
  private accepting = true;

  constructor(private readonly opts: WebhookOptions) {}

  readonly handle: WebhookHandler = async (headers, body) => {
    if (!this.accepting) return reply(503, "stopping");
    const refusal = refuseWithoutSecret(headers, this.opts.secret, this.opts.logger);
    if (refusal) return refusal;
    const update = parseBody(body);
    this.opts.health.received();
    if (!update) {
      this.opts.logger.error("telegram webhook body is not an update; acknowledged and skipped");
      return reply(200, "skipped");
    }
    try {
      await this.accept(update);
      return reply(200, "ok");
    } catch (err) {
      this.opts.logger.warn({ err, updateId: update.update_id }, "telegram webhook delivery failed; Telegram will resend");
      return reply(500, "delivery failed");
    }
  };

  /** Refuses new calls and delivers anything held for joining. */
  async stop(): Promise<void> {
    this.accepting = false;
    await Promise.allSettled([...this.held.keys()].map((k) => this.flush(k)));
  }

  private accept(update: Update): Promise<void> {
    const key = joinKey(update);
    const held = key ? this.held.get(key) : undefined;
    const last = held?.updates[held.updates.length - 1];
    if (key && held && last && canJoin(last, update)) {
      const p = this.waitOn(held);
      held.updates.push(update);
      if (isSplitCandidate(update)) this.arm(key, held);
      else void this.flush(key);
      return p;
    }
    const before = key && held ? this.flush(key) : Promise.resolve();
    if (key && this.opts.splitJoinMs > 0 && isSplitCandidate(update)) {
      const fresh: Held = { updates: [update], waiters: [], cancelTimer: () => {} };
      this.held.set(key, fresh);
      this.arm(key, fresh);
      return this.waitOn(fresh);
    }
    return before.then(() => this.opts.ingress.process([update]));
  }

  private waitOn(held: Held): Promise<void> {
    return new Promise((resolve, reject) => held.waiters.push({ resolve, reject }));
  }

  private arm(key: string, held: Held): void {
    held.cancelTimer();
    const timer = setTimeout(() => void this.flush(key), this.opts.splitJoinMs);
    held.cancelTimer = () => clearTimeout(timer);
  }

  /** Delivers a held group; every request that contributed a part gets the outcome. */
  private async flush(key: string): Promise<void> {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    held.cancelTimer();
    try {
      await this.opts.ingress.process(held.updates);
      for (const w of held.waiters) w.resolve();
    } catch (err) {
      for (const w of held.waiters) w.reject(err);
    }
  }
}

function joinKey(u: Update): string | null {
  const m = u.message;
  return m?.chat && m.from ? `${m.chat.id}:${m.from.id}:${m.message_thread_id ?? ""}` : null;
}

/**
 * The 401 for a call without the right secret token, or null. Needs only the
 * headers: the HTTP route runs it before the body is read.
 */
export function refuseWithoutSecret(headers: WebhookHeaders, secret: string | undefined, logger: Logger): WebhookReply | null {
  if (secret && secretMatches(headerValue(headers, SECRET_HEADER), secret)) return null;
  logger.warn("telegram webhook call with a wrong or missing secret token; refused");
  return reply(401, "unauthorized");
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const direct = headers[name] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(direct) ? direct[0] : (direct as string | undefined);
}

function secretMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseBody(body: unknown): Update | null {
  let value = body;
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    try {
      value = JSON.parse(body.toString());
    } catch {
      return null;
    }
  }
  return typeof value === "object" && value !== null && typeof (value as Update).update_id === "number" ? (value as Update) : null;
}

function reply(status: number, body: string): WebhookReply {
  return { status, body };
}
