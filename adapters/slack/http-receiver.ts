/**
 * HTTP mode: bolt's Receiver over one route on the gateway's own HTTP server
 * (no second listener). Slack proves a request with `x-slack-signature`, an
 * HMAC of `v0:<timestamp>:<raw body>` with the signing secret, checked on
 * the raw bytes by bolt's own verifier; a wrong signature or a timestamp
 * older than five minutes (a replay) gets 401 and nothing is delivered.
 * `url_verification` is answered with its challenge. Anything else is
 * dispatched (bolt-dispatch.ts) and answered 200 only once the gateway has
 * committed it; a failure answers 500, so Slack retries (with
 * `X-Slack-Retry-Num`), and the retry meets the gateway's dedupe.
 */
import { type App, isValidSlackRequest, type Receiver } from "@slack/bolt";
import type { Logger } from "pino";
import type { HealthTracker } from "../common/health-tracker.js";
import { dispatchToBolt, InFlight } from "./bolt-dispatch.js";
import { slackLogger } from "./web.js";

export type HttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Slack's requests are small (an event, a click with its message, a slash command); anything bigger is not Slack's. */
export const EVENTS_BODY_LIMIT = 1024 * 1024;
/** Slack's own rule: a request whose timestamp is older than this is a replay. */
const MAX_AGE_S = 5 * 60;

export interface HttpReply {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
}

export interface HttpReceiverOptions {
  readonly signingSecret: string;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly now?: () => number;
}

export class HttpReceiver implements Receiver {
  private app: App | null = null;
  private accepting = false;
  private readonly inFlight = new InFlight();

  constructor(private readonly opts: HttpReceiverOptions) {}

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    this.accepting = true;
  }

  /** Refuses new requests (503) and lets those being handled finish, for as long as `signal` allows. */
  async stop(signal?: AbortSignal): Promise<void> {
    this.accepting = false;
    await this.inFlight.settle(signal);
  }

  async handle(raw: Buffer, headers: HttpHeaders): Promise<HttpReply> {
    if (!this.accepting || !this.app) return text(503, "not accepting");
    if (!this.verified(raw, headers)) {
      this.opts.logger.warn("slack request with a wrong signature or a stale timestamp; refused");
      return text(401, "unauthorized");
    }
    this.opts.health.received();
    const body = parseBody(raw, header(headers, "content-type") ?? "");
    if (!body) return text(400, "unreadable body");
    if (body.type === "url_verification") return json(200, { challenge: body.challenge });
    if (body.ssl_check !== undefined) return text(200, "");
    const retryNum = Number(header(headers, "x-slack-retry-num"));
    const outcome = await this.inFlight.track(
      dispatchToBolt(this.app, body, Number.isInteger(retryNum) ? retryNum : undefined, header(headers, "x-slack-retry-reason")),
    );
    if (!outcome.ok) {
      this.opts.logger.warn({ err: outcome.error }, "slack request not acknowledged: Slack will retry it");
      return text(500, "delivery failed");
    }
    const r = outcome.response;
    if (r === undefined || r === "") return text(200, "");
    return typeof r === "string" ? text(200, r) : json(200, r);
  }

  private verified(raw: Buffer, headers: HttpHeaders): boolean {
    const signature = header(headers, "x-slack-signature");
    const timestamp = Number(header(headers, "x-slack-request-timestamp"));
    if (!signature || !Number.isFinite(timestamp)) return false;
    return isValidSlackRequest({
      signingSecret: this.opts.signingSecret,
      body: raw.toString("utf8"),
      headers: { "x-slack-signature": signature, "x-slack-request-timestamp": timestamp },
      nowMilliseconds: (this.opts.now ?? Date.now)(),
      logger: slackLogger(this.opts.logger),
    });
  }
}

/**
 * What can be refused before the body is read: a request without Slack's
 * signature headers, or with a stale timestamp. (The signature itself covers
 * the body, so it is checked once the body is in.)
 */
export function refuseUnsigned(headers: HttpHeaders, nowMs: number, logger: Logger): HttpReply | null {
  const timestamp = Number(header(headers, "x-slack-request-timestamp"));
  if (header(headers, "x-slack-signature") && Number.isFinite(timestamp) && timestamp >= Math.floor(nowMs / 1000) - MAX_AGE_S) return null;
  logger.warn("slack request without a signature or with a stale timestamp; refused");
  return text(401, "unauthorized");
}

/** Events come as JSON; clicks as a form with one `payload` field holding JSON; slash commands as plain form fields. */
function parseBody(raw: Buffer, contentType: string): Record<string, unknown> | null {
  try {
    const textBody = raw.toString("utf8");
    if (contentType.startsWith("application/json")) return asObject(JSON.parse(textBody));
    const form = Object.fromEntries(new URLSearchParams(textBody));
    return typeof form.payload === "string" ? asObject(JSON.parse(form.payload)) : form;
  } catch {
    return null;
  }
}

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function header(headers: HttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : (v as string | undefined);
}

function text(status: number, body: string): HttpReply {
  return { status, body, contentType: "text/plain; charset=utf-8" };
}

function json(status: number, body: unknown): HttpReply {
  return { status, body: JSON.stringify(body), contentType: "application/json; charset=utf-8" };
}
