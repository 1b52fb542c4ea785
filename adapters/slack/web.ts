/**
 * The Web API clients, over one keep-alive connection pool that stop() can
 * release. Rate limits are retried by the Web API client alone (it waits
 * out `Retry-After`, then tries again): that is the one retry layer for
 * them. Every other failure leaves the client at once, to be classified
 * (errors.ts) — the client's own retries would resend a `chat.postMessage`
 * whose answer was lost, posting it twice.
 */
import { LogLevel, webApi } from "@slack/bolt";
import type { Logger } from "pino";
import { Agent, fetch as undiciFetch } from "undici";
import type { RequestReports } from "../common/request-reports.js";
import { waitedOutRateLimit } from "./errors.js";

type WebClient = webApi.WebClient;

export interface SlackWebOptions {
  readonly botToken: string;
  readonly appToken?: string;
  readonly apiUrl: string;
  readonly requestTimeoutMs: number;
  /** Rate-limited calls the waiting client retries after `Retry-After`. */
  readonly rateLimitRetries: number;
  readonly logger: Logger;
}

export class SlackWeb {
  /** Waits out rate limits (final replies, prompts, uploads). */
  readonly client: WebClient;
  /** Fails at once on a rate limit (previews, typing reactions): late is useless for them. */
  readonly fast: WebClient;
  /** Authenticated with the app-level token (apps.connections.open); absent without one. */
  readonly app: WebClient | undefined;
  /** fetch over the same pool, for upload URLs and file downloads. */
  readonly fetch: typeof globalThis.fetch;
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  private readonly base: webApi.WebClientOptions;

  constructor(readonly opts: SlackWebOptions) {
    const pooled = ((url: string | URL, init?: RequestInit) =>
      undiciFetch(url, { ...(init as object), dispatcher: this.agent })) as unknown as typeof globalThis.fetch;
    this.fetch = pooled;
    const base = {
      slackApiUrl: opts.apiUrl,
      logger: slackLogger(opts.logger),
      fetch: pooled as unknown as webApi.WebClientOptions["fetch"],
      timeout: opts.requestTimeoutMs,
    };
    this.base = base;
    this.client = new webApi.WebClient(opts.botToken, { ...base, retryConfig: rateLimitOnly(opts.rateLimitRetries) });
    this.fast = new webApi.WebClient(opts.botToken, { ...base, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } });
    this.app = opts.appToken ? new webApi.WebClient(opts.appToken, { ...base, retryConfig: rateLimitOnly(opts.rateLimitRetries) }) : undefined;
  }

  /**
   * A client of its own for one call that posts a reply, set up as `client` (it waits out rate limits), whose
   * every request is reported to `reports` as it leaves: the first try and each retry after a 429. The Web API
   * client queues its requests and, on a 429, holds its whole queue while it waits: on the shared client a
   * request of this call could leave that queue at any time after the call began, unseen. On a client of its
   * own, nothing waits in the queue but this call's own retry, and each request is seen at the fetch it goes
   * through. Once `signal` aborts (the caller gave up on the call) no further request leaves. `fast`: as the
   * `fast` client, it fails at once on a rate limit instead of waiting it out (a stream's preview).
   */
  reporting(reports: RequestReports, signal: AbortSignal, fast = false): WebClient {
    const fetch = (url: string | URL, init?: RequestInit): Promise<Response> => {
      signal.throwIfAborted();
      // Slack answers 200 to a call it refused too (`ok: false`): only the call's outcome tells (RequestReports.settle).
      return reports.request(
        () => this.fetch(url, init),
        (res) => (res.status === 200 ? undefined : false),
      );
    };
    const limits = fast ? { rejectRateLimitedCalls: true, retryConfig: { retries: 0 } } : { retryConfig: rateLimitOnly(this.opts.rateLimitRetries) };
    return new webApi.WebClient(this.opts.botToken, { ...this.base, fetch: fetch as unknown as webApi.WebClientOptions["fetch"], ...limits });
  }

  /** Closes idle pooled connections and cuts any still open. */
  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

/**
 * p-retry settings under which only the client's rate-limit wait is retried
 * (at most `retries` times): after waiting out a 429 the client asks for
 * another attempt (waitedOutRateLimit), while every real failure ends the
 * call here, to be classified.
 */
function rateLimitOnly(retries: number): webApi.RetryOptions {
  return {
    retries,
    minTimeout: 0,
    maxTimeout: 0,
    onFailedAttempt: (err: Error) => {
      if (!waitedOutRateLimit(err)) throw err;
    },
  } as webApi.RetryOptions;
}

/** bolt's and the Web API client's log lines, into the gateway's logger (debug chatter stays at debug). */
export function slackLogger(logger: Logger): webApi.Logger {
  const line = (parts: unknown[]): string => parts.map((p) => (p instanceof Error ? p.message : typeof p === "string" ? p : JSON.stringify(p))).join(" ");
  // The client logs every request at debug: formatting those lines only pays when debug is on.
  const debug = (...m: unknown[]): void => {
    if (logger.isLevelEnabled("debug")) logger.debug(line(m));
  };
  return {
    debug,
    info: debug,
    warn: (...m: unknown[]) => logger.warn(line(m)),
    error: (...m: unknown[]) => logger.error(line(m)),
    setLevel: () => undefined,
    getLevel: () => (logger.isLevelEnabled("debug") ? LogLevel.DEBUG : LogLevel.INFO),
    setName: () => undefined,
  };
}
