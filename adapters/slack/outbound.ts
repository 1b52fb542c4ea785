/**
 * Outbound Web API calls. Every call that targets a channel goes through the
 * connection's one scheduler (order per channel, one call in flight per
 * channel, pacing under Slack's per-channel limit); failures leave here as
 * `AdapterSendError`. Network and server failures are retried by the
 * scheduler (except a message-creating call that may have gone through:
 * `uncertain`); rate limits are the Web API client's to wait out, so the
 * scheduler never retries them a second time. The calls that post a message
 * report each of their requests to the send's `dispatch` as it leaves
 * (SlackWeb.reporting).
 */
import type { webApi } from "@slack/bolt";
import { raceAbort } from "../../config/timing/index.js";
import { RequestReports } from "../common/request-reports.js";
import type { OutboundScheduler, RetryDecision } from "../common/scheduler.js";
import { AdapterSendError, type ChatRef, type DispatchObserver } from "../types.js";
import { createsMessage, isAlreadyDone, slackErrorCode, toAdapterError } from "./errors.js";
import type { SlackWeb } from "./web.js";

type WebClient = webApi.WebClient;

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Fail at once on a rate limit instead of waiting it out (previews, typing). */
  readonly fast?: boolean;
  /** Typing feedback: never delays a message, dropped if it cannot start soon. */
  readonly lowPriority?: boolean;
  readonly startWithinMs?: number;
  /** The send this call belongs to: told about each request of a call that posts a message (`chat.postMessage`, `chat.postEphemeral`, `files.completeUploadExternal`). */
  readonly dispatch?: DispatchObserver;
}

/** What one message carries: mrkdwn text (the notification and fallback text when there are blocks) and Block Kit blocks. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks?: readonly unknown[];
}

/** Retries what may be retried; a rate limit was already waited out by the Web API client (or must fail fast). */
export function classifySlackError(err: unknown): RetryDecision {
  if (err instanceof AdapterSendError && (err.kind === "network" || err.kind === "server")) return { kind: "retry" };
  return { kind: "fail" };
}

export class SlackOutbound {
  constructor(
    private readonly web: SlackWeb,
    private readonly scheduler: OutboundScheduler,
  ) {}

  /**
   * Runs one Web API call through the scheduler; `chat` null means a channel-less call (global budget only).
   * A call that posts a message, given `dispatch`, runs on a client of its own that reports its requests
   * (SlackWeb.reporting): one still waiting in the scheduler's queue, or in the client's for a rate limit, is
   * not reported before it leaves.
   */
  call<T>(chat: ChatRef | null, method: string, fn: (client: WebClient) => Promise<T>, opts: CallOptions = {}): Promise<T> {
    const observer = createsMessage(method) ? opts.dispatch : undefined;
    const run = async (signal: AbortSignal): Promise<T> => {
      const reports = observer ? new RequestReports(observer) : undefined;
      const client = reports ? this.web.reporting(reports, signal, opts.fast) : opts.fast ? this.web.fast : this.web.client;
      try {
        const result = await raceAbort(fn(client), signal);
        reports?.settle(true);
        return result;
      } catch (err) {
        const failure = toAdapterError(err, method);
        // Refused or rate limited: nothing posted. Timed out or aborted after it was sent, or "maybe done": perhaps.
        reports?.settle(failure.kind === "uncertain" || signal.aborted);
        throw reports ? reports.failure(err, () => failure) : failure;
      }
    };
    return this.scheduler.schedule(run, {
      ...(chat ? { chatId: chat.chatId } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.lowPriority ? { lowPriority: true } : {}),
      ...(opts.startWithinMs !== undefined ? { startWithinMs: opts.startWithinMs } : {}),
    });
  }

  /** Posts a message into the chat (into its thread when it has one); resolves with its ts. */
  async post(chat: ChatRef, message: SlackMessage, opts: CallOptions = {}): Promise<string> {
    const res = await this.call(
      chat,
      "chat.postMessage",
      (c) => c.chat.postMessage({ channel: chat.chatId, ...thread(chat), ...body(message) } as webApi.ChatPostMessageArguments),
      opts,
    );
    if (typeof res.ts !== "string") throw new AdapterSendError("Slack chat.postMessage answered without a message ts.", "rejected");
    return res.ts;
  }

  async update(chat: ChatRef, ts: string, message: SlackMessage, opts: CallOptions = {}): Promise<void> {
    await this.call(chat, "chat.update", (c) => c.chat.update({ channel: chat.chatId, ts, ...body(message) } as webApi.ChatUpdateArguments), opts);
  }

  /** Deletes a message; one already gone counts as deleted. */
  async remove(chat: ChatRef, ts: string, opts: CallOptions = {}): Promise<void> {
    try {
      await this.call(chat, "chat.delete", (c) => c.chat.delete({ channel: chat.chatId, ts }), opts);
    } catch (err) {
      if (slackErrorCode(err) !== "message_not_found") throw err;
    }
  }

  /** A message only `user` sees, in the chat's thread. */
  async ephemeral(chat: ChatRef, user: string, text: string, opts: CallOptions = {}): Promise<void> {
    await this.call(chat, "chat.postEphemeral", (c) => c.chat.postEphemeral({ channel: chat.chatId, user, text, ...thread(chat) }), opts);
  }

  /** Adds or removes the bot's reaction; one already there (or already gone) counts as done. */
  async react(chat: ChatRef, ts: string, name: string, on: boolean, opts: CallOptions = {}): Promise<void> {
    const method = on ? "reactions.add" : "reactions.remove";
    try {
      await this.call(
        chat,
        method,
        (c) => (on ? c.reactions.add({ channel: chat.chatId, timestamp: ts, name }) : c.reactions.remove({ channel: chat.chatId, timestamp: ts, name })),
        opts,
      );
    } catch (err) {
      if (!isAlreadyDone(err)) throw err;
    }
  }
}

function thread(chat: ChatRef): { thread_ts?: string } {
  return chat.threadId ? { thread_ts: chat.threadId } : {};
}

function body(message: SlackMessage): Record<string, unknown> {
  return { text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) };
}
