/**
 * Outbound Discord REST calls, through discord.js's REST client: its queue
 * paces each rate-limit bucket and waits out every 429's retry_after, the one
 * layer that retries rate limits. It is built with no retries of its own
 * (they would resend a message create that timed out, at once and without
 * backoff): network and server failures are retried here instead, with
 * backoff, except a create that may have gone through (`uncertain`). Failures
 * leave here as `AdapterSendError`, final: nothing above retries them.
 */
import { MessageFlags, Routes, type REST, type RawFile } from "discord.js";
import { retry, type RetryOptions } from "../../config/timing/index.js";
import { AdapterSendError, type Button } from "../types.js";
import { toAdapterError, type CallInfo } from "./errors.js";
import { DISCORD_MAX_CUSTOM_ID } from "./options.js";

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
    private readonly retries: OutboundRetry,
  ) {}

  /** Posts a message; resolves with its id. */
  async post(channelId: string, body: MessageBody, files: readonly RawFile[] = [], signal?: AbortSignal): Promise<string> {
    const sent = await this.call({ what: "create message", creates: true }, () =>
      this.rest.post(Routes.channelMessages(channelId), { body: wire(body), ...(files.length ? { files: [...files] } : {}), ...sig(signal) }),
      signal,
    );
    return (sent as { id: string }).id;
  }

  /** Replaces a message's content; `buttons: []` removes its buttons, undefined leaves them. */
  async edit(channelId: string, messageId: string, content: string, buttons?: readonly (readonly Button[])[], signal?: AbortSignal): Promise<void> {
    const body = { content, allowed_mentions: { parse: [] }, ...(buttons ? { components: components(buttons) } : {}) };
    await this.call({ what: "edit message", creates: false }, () => this.rest.patch(Routes.channelMessage(channelId, messageId), { body, ...sig(signal) }), signal);
  }

  async remove(channelId: string, messageId: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "delete message", creates: false }, () => this.rest.delete(Routes.channelMessage(channelId, messageId), sig(signal)), signal);
  }

  async typing(channelId: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "typing", creates: false }, () => this.rest.post(Routes.channelTyping(channelId), sig(signal)), signal);
  }

  async react(channelId: string, messageId: string, emoji: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "reaction", creates: false }, () => this.rest.put(Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)), sig(signal)), signal);
  }

  /** Starts a public thread from a message (the thread takes the message's id); resolves with the thread id. */
  async startThread(channelId: string, messageId: string, name: string, signal?: AbortSignal): Promise<string> {
    const body = { name: name.slice(0, 100), auto_archive_duration: 1440 };
    const t = await this.call({ what: "create thread", creates: true }, () => this.rest.post(Routes.threads(channelId, messageId), { body, ...sig(signal) }), signal);
    return (t as { id: string }).id;
  }

  async fetchMessage(channelId: string, messageId: string, signal?: AbortSignal): Promise<{ content: string }> {
    return (await this.call({ what: "fetch message", creates: false }, () => this.rest.get(Routes.channelMessage(channelId, messageId), sig(signal)), signal)) as { content: string };
  }

  /** The first answer to an interaction (within Discord's 3 s). */
  async acknowledge(interactionId: string, token: string, type: number, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "interaction callback", creates: false, secretUrl: true }, () =>
      this.rest.post(Routes.interactionCallback(interactionId, token), { body: { type }, auth: false, ...sig(signal) }),
      signal,
    );
  }

  /** A follow-up message to an acknowledged interaction (ephemeral: only the user who acted sees it). */
  async followUp(token: string, body: MessageBody, signal?: AbortSignal): Promise<string> {
    const sent = await this.call({ what: "interaction follow-up", creates: true, secretUrl: true }, () =>
      this.rest.post(Routes.webhook(this.applicationId(), token), { body: wire(body), auth: false, query: new URLSearchParams({ wait: "true" }), ...sig(signal) }),
      signal,
    );
    return (sent as { id: string }).id;
  }

  /** Replaces a deferred interaction reply ("… is thinking") with the answer; resolves with its message id. */
  async editOriginal(token: string, body: MessageBody, signal?: AbortSignal): Promise<string> {
    const sent = await this.call({ what: "interaction reply", creates: false, secretUrl: true }, () =>
      this.rest.patch(Routes.webhookMessage(this.applicationId(), token, "@original"), { body: wire(body), auth: false, ...sig(signal) }),
      signal,
    );
    return (sent as { id: string }).id;
  }

  async deleteOriginal(token: string, signal?: AbortSignal): Promise<void> {
    await this.call({ what: "delete interaction reply", creates: false, secretUrl: true }, () =>
      this.rest.delete(Routes.webhookMessage(this.applicationId(), token, "@original"), { auth: false, ...sig(signal) }),
      signal,
    );
  }

  /** Replaces the application's slash commands (in one guild, or globally). */
  async putCommands(guildId: string | null, commands: readonly unknown[], signal?: AbortSignal): Promise<void> {
    const route = guildId ? Routes.applicationGuildCommands(this.applicationId(), guildId) : Routes.applicationCommands(this.applicationId());
    await this.call({ what: "register commands", creates: false }, () => this.rest.put(route, { body: commands, ...sig(signal) }), signal);
  }

  /** One REST call, tried again on a transient failure; every failure (the ones `onRetry` is told of too) is classified, so an interaction token in a URL never reaches a log. */
  private call<T>(info: CallInfo, fn: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const once = async (): Promise<T> => {
      try {
        return await fn();
      } catch (err) {
        throw toAdapterError(err, info);
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
    if (b.id.length > DISCORD_MAX_CUSTOM_ID) throw new AdapterSendError(`Button id "${b.id.slice(0, 20)}…" is longer than Discord's 100-character custom_id limit.`, "rejected");
  }
}
