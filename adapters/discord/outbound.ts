/**
 * Outbound Discord REST calls, through discord.js's REST client: its queue
 * paces each rate-limit bucket and waits out every 429's retry_after, the one
 * layer that retries rate limits. It is built with no retries of its own
 * (they would resend a message create that timed out, at once and without
 * backoff): network and server failures are retried here instead, with
 * backoff, except a create that may have gone through (`uncertain`). Failures
 * leave here as `AdapterSendError`, final: nothing above retries them. The calls that show a reply (a message
 * posted, a slash command's placeholder replaced by its answer) report their
 * requests to the send's `dispatch` as they leave REST's queue.
 */
import { MessageFlags, type RawFile, type REST, Routes } from "discord.js";
import { type RetryOptions, retry } from "../../config/timing/index.js";
import { RequestReports } from "../common/request-reports.js";
import { AdapterSendError, type Button, type DispatchObserver } from "../types.js";
import { type CallInfo, toAdapterError } from "./errors.js";
import { DISCORD_MAX_CUSTOM_ID } from "./options.js";
import type { PostingRequests } from "./posting-requests.js";

/** A message as this adapter posts it. */
export interface MessageBody {
  readonly content?: string;
  readonly replyTo?: string;
  readonly buttons?: readonly (readonly Button[])[];
  readonly silent?: boolean;
  readonly ephemeral?: boolean;
}

/** Interaction callback types used here. */
export const CALLBACK = { deferredReply: 5, deferredUpdate: 6 } as const;

const STYLE: Record<NonNullable<Button["style"]>, number> = { primary: 1, secondary: 2, success: 3, danger: 4 };
const MAX_ROWS = 5;
const MAX_PER_ROW = 5;

/** How a failed call is tried again: the attempts, the backoff, the clock and the log line; which failures, this module decides. */
export type OutboundRetry = Pick<RetryOptions, "maxAttempts" | "policy" | "clock" | "onRetry">;

export class DiscordOutbound {
  constructor(
    private readonly rest: REST,
    private readonly applicationId: () => string,
    private readonly posting: PostingRequests,
    private readonly retries: OutboundRetry,
  ) {}

  /** Posts a message; resolves with its id. `dispatch`: told about each request of it. */
  async post(channelId: string, body: MessageBody, files: readonly RawFile[] = [], signal?: AbortSignal, dispatch?: DispatchObserver): Promise<string> {
    const sent = await this.call(
      { what: "create message", creates: true },
      signal,
      () => this.rest.post(Routes.channelMessages(channelId), { body: wire(body), ...(files.length ? { files: [...files] } : {}), ...sig(signal) }),
      dispatch,
    );
    return (sent as { id: string }).id;
  }

  /** Replaces a message's content; `buttons: []` removes its buttons, undefined leaves them. */
  async edit(channelId: string, messageId: string, content: string, buttons?: readonly (readonly Button[])[], signal?: AbortSignal): Promise<void> {
    const body = { content, allowed_mentions: { parse: [] }, ...(buttons ? { components: components(buttons) } : {}) };
    await this.call({ what: "edit message", creates: false }, signal, () =>
      this.rest.patch(Routes.channelMessage(channelId, messageId), { body, ...sig(signal) }),
    );
  }

  async remove(channelId: string, messageId: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "delete message", creates: false }, signal, () => this.rest.delete(Routes.channelMessage(channelId, messageId), sig(signal)));
  }

  async typing(channelId: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "typing", creates: false }, signal, () => this.rest.post(Routes.channelTyping(channelId), sig(signal)));
  }

  async react(channelId: string, messageId: string, emoji: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "reaction", creates: false }, signal, () =>
      this.rest.put(Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)), sig(signal)),
    );
  }

  /** Starts a public thread from a message (the thread takes the message's id); resolves with the thread id. */
  async startThread(channelId: string, messageId: string, name: string, signal?: AbortSignal): Promise<string> {
    const body = { name: name.slice(0, 100), auto_archive_duration: 1440 };
    const t = await this.call({ what: "create thread", creates: true }, signal, () =>
      this.rest.post(Routes.threads(channelId, messageId), { body, ...sig(signal) }),
    );
    return (t as { id: string }).id;
  }

  async fetchMessage(channelId: string, messageId: string, signal?: AbortSignal): Promise<{ content: string }> {
    return (await this.call({ what: "fetch message", creates: false }, signal, () =>
      this.rest.get(Routes.channelMessage(channelId, messageId), sig(signal)),
    )) as { content: string };
  }

  /** The first answer to an interaction (within Discord's 3 s). */
  async acknowledge(interactionId: string, token: string, type: number, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "interaction callback", creates: false, secretUrl: true }, signal, () =>
      this.rest.post(Routes.interactionCallback(interactionId, token), { body: { type }, auth: false, ...sig(signal) }),
    );
  }

  /** A follow-up message to an acknowledged interaction (ephemeral: only the user who acted sees it). */
  async followUp(token: string, body: MessageBody, signal?: AbortSignal): Promise<string> {
    const sent = await this.call({ what: "interaction follow-up", creates: true, secretUrl: true }, signal, () =>
      this.rest.post(Routes.webhook(this.applicationId(), token), {
        body: wire(body),
        auth: false,
        query: new URLSearchParams({ wait: "true" }),
        ...sig(signal),
      }),
    );
    return (sent as { id: string }).id;
  }

  /**
   * Replaces a deferred interaction reply ("… is thinking") with the answer; resolves with its message id.
   * An edit, but the one that shows the answer: `dispatch` is told about it as about a post.
   */
  async editOriginal(token: string, body: MessageBody, signal?: AbortSignal, dispatch?: DispatchObserver): Promise<string> {
    const sent = await this.call(
      { what: "interaction reply", creates: false, secretUrl: true },
      signal,
      () => this.rest.patch(Routes.webhookMessage(this.applicationId(), token, "@original"), { body: wire(body), auth: false, ...sig(signal) }),
      dispatch,
    );
    return (sent as { id: string }).id;
  }

  async deleteOriginal(token: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "delete interaction reply", creates: false, secretUrl: true }, signal, () =>
      this.rest.delete(Routes.webhookMessage(this.applicationId(), token, "@original"), { auth: false, ...sig(signal) }),
    );
  }

  /** Replaces the application's slash commands (in one guild, or globally). */
  async putCommands(guildId: string | null, commands: readonly unknown[], signal?: AbortSignal): Promise<void> {
    const route = guildId ? Routes.applicationGuildCommands(this.applicationId(), guildId) : Routes.applicationCommands(this.applicationId());
    await this.call({ what: "register commands", creates: false }, signal, () => this.rest.put(route, { body: commands, ...sig(signal) }));
  }

  /**
   * One REST call, tried again on a transient failure; with `dispatch`, each request of every attempt is
   * reported as it leaves (PostingRequests). Every failure (the ones `onRetry` is told of too) is classified,
   * so an interaction token in a URL never reaches a log.
   */
  private call<T>(info: CallInfo, signal: AbortSignal | undefined, fn: () => Promise<T>, dispatch?: DispatchObserver): Promise<T> {
    const reports = dispatch ? new RequestReports(dispatch) : undefined;
    const classify = (e: unknown) => toAdapterError(e, info);
    const once = async (): Promise<T> => {
      try {
        return await this.posting.run(reports, fn);
      } catch (err) {
        throw reports ? reports.failure(err, classify) : classify(err);
      }
    };
    return retry(once, { ...this.retries, signal, retryable: transient });
  }
}

/** A failure in the network or on Discord's side; not a timed-out create (`uncertain`), nor a rate limit (discord.js waited those out). */
function transient(err: unknown): boolean {
  return err instanceof AdapterSendError && (err.kind === "network" || err.kind === "server");
}

function sig(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

/** Nothing the model writes pings anyone (no @everyone, roles or users); a reply notifies the person replied to. */
function wire(b: MessageBody): Record<string, unknown> {
  const flags = (b.silent ? MessageFlags.SuppressNotifications : 0) | (b.ephemeral ? MessageFlags.Ephemeral : 0);
  return {
    ...(b.content !== undefined ? { content: b.content } : {}),
    allowed_mentions: { parse: [], replied_user: true },
    ...(b.replyTo ? { message_reference: { message_id: b.replyTo, fail_if_not_exists: false } } : {}),
    ...(b.buttons?.length ? { components: components(b.buttons) } : {}),
    ...(flags ? { flags } : {}),
  };
}

/** Buttons as action rows (at most 5 per row and 5 rows, as Discord allows). */
export function components(buttons: readonly (readonly Button[])[]): unknown[] {
  const rows = buttons.flatMap((row) => {
    const out: Button[][] = [];
    for (let i = 0; i < row.length; i += MAX_PER_ROW) out.push(row.slice(i, i + MAX_PER_ROW));
    return out;
  });
  return rows.slice(0, MAX_ROWS).map((row) => ({
    type: 1,
    components: row.map((b) => ({ type: 2, custom_id: b.id, label: b.label.slice(0, 80), style: STYLE[b.style ?? "secondary"] })),
  }));
}

/** Discord refuses custom_ids over 100 characters; we refuse before calling, with a clear error. */
export function assertButtons(buttons: readonly (readonly Button[])[] | undefined): void {
  for (const b of (buttons ?? []).flat()) {
    if (b.id.length > DISCORD_MAX_CUSTOM_ID)
      throw new AdapterSendError(`Button id "${b.id.slice(0, 20)}…" is longer than Discord's 100-character custom_id limit.`, "rejected");
  }
}
