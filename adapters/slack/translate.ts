/**
 * Slack payloads → the adapter contract's inbound events: message and
 * app_mention events, button clicks (block_actions) and the slash command.
 * Anything not to deliver becomes a `skip` with a reason (logged by the
 * caller); only transient download failures throw, so the event is not
 * acknowledged and Slack delivers it again.
 *
 * Dedupe keys: a message is `<channel>:<ts>` whichever event brought it —
 * Slack sends a mention both as `app_mention` and as `message`, under two
 * event ids, and redelivers either under its own id — so the gateway's
 * dedupe sees one message. Clicks and commands are keyed by their trigger id.
 *
 * Sessions (as Hermes Agent's gateway keys them): a DM thread is its session,
 * and a top-level DM message starts one when `dm_top_level_threads_as_sessions`;
 * in channels a thread is the session, and with `reply_in_thread` a
 * top-level message starts its own thread.
 */
import type { ChatRef, ChatType, InboundEvent } from "../types.js";
import { mrkdwnToPlain } from "./format.js";
import { type BotIdentity, chatTypeOf, type GatingRules, gate, type SlackMessageEvent } from "./gating.js";
import type { SlackFile, SlackMediaFetcher } from "./media-in.js";

export type Translation = { readonly kind: "deliver"; readonly event: InboundEvent } | { readonly kind: "skip"; readonly reason: string };

export interface SessionRules {
  readonly replyInThread: boolean;
  readonly dmThreads: boolean;
}

export interface TranslateContext {
  readonly bot: BotIdentity;
  readonly rules: GatingRules & SessionRules;
  /** Whether the bot takes part in this thread (posted in it or was mentioned there). */
  isBotThread(channel: string, threadTs: string, signal?: AbortSignal): Promise<boolean>;
  /** A person's display name (falls back to the id). */
  nameOf(userId: string, signal?: AbortSignal): Promise<string>;
  readonly media: SlackMediaFetcher;
  readonly slashCommand: string;
  readonly now: () => number;
}

const PLATFORM = "slack";

export async function translateMessage(ev: SlackMessageEvent, ctx: TranslateContext, signal?: AbortSignal): Promise<Translation> {
  const g = gate(ev, ctx.bot, ctx.rules);
  if (g.kind === "skip") return g;
  const channel = ev.channel as string;
  const ts = ev.ts as string;
  const inBotThread =
    !g.addressed && ev.thread_ts !== undefined && (ev.parent_user_id === ctx.bot.userId || (await ctx.isBotThread(channel, ev.thread_ts, signal)));
  if (!g.addressed && !inBotThread) return skip("not addressed to the bot");
  const files = (ev.files ?? []) as readonly SlackFile[];
  const { media, notes } = files.length ? await ctx.media.collect(files, signal) : { media: [], notes: [] };
  const text = [mrkdwnToPlain(ev.text ?? "", ctx.bot.userId), ...notes].filter((t) => t !== "").join("\n\n");
  if (text === "" && media.length === 0) return skip("no text or files");
  const userId = ev.user ?? ev.bot_id ?? "";
  const displayName = g.isBot ? (ev.bot_profile?.name ?? ev.username ?? userId) : await ctx.nameOf(userId, signal);
  const event: InboundEvent = {
    kind: "message",
    eventId: `${channel}:${ts}`,
    chat: chatRef(channel, g.chatType, sessionThread(g.chatType, ev.thread_ts, ts, ctx.rules)),
    sender: { userId, displayName, isBot: g.isBot },
    timestamp: Math.round(Number(ts) * 1000),
    messageId: ts,
    text,
    media,
    ...(ev.thread_ts && ev.thread_ts !== ts ? { replyTo: { messageId: ev.thread_ts, fromBot: ev.parent_user_id === ctx.bot.userId } } : {}),
    addressed: true,
  };
  return { kind: "deliver", event };
}

/** The thread a message's session lives in (undefined: the channel or DM itself). */
function sessionThread(chatType: ChatType, threadTs: string | undefined, ts: string, rules: SessionRules): string | undefined {
  if (threadTs) return threadTs;
  const ownThread = chatType === "dm" ? rules.dmThreads : rules.replyInThread;
  return ownThread ? ts : undefined;
}

/** The fields of a block_actions payload the adapter reads. */
export interface SlackActionBody {
  readonly type?: string;
  readonly trigger_id?: string;
  readonly user?: { readonly id?: string; readonly name?: string; readonly username?: string };
  readonly channel?: { readonly id?: string };
  readonly container?: { readonly message_ts?: string; readonly thread_ts?: string; readonly channel_id?: string };
  readonly message?: { readonly ts?: string; readonly thread_ts?: string; readonly blocks?: readonly unknown[] };
  readonly actions?: readonly { readonly action_id?: string; readonly action_ts?: string; readonly text?: { readonly text?: string } }[];
}

export function translateAction(body: SlackActionBody, ctx: TranslateContext): Translation {
  const action = body.actions?.[0];
  const channel = body.channel?.id ?? body.container?.channel_id;
  const messageTs = body.container?.message_ts ?? body.message?.ts;
  if (!action?.action_id || !channel || !messageTs || !body.user?.id) return skip("click without an action, channel, message or user");
  const threadTs = body.container?.thread_ts ?? body.message?.thread_ts;
  const event: InboundEvent = {
    kind: "action",
    eventId: `action:${body.trigger_id ?? `${messageTs}:${action.action_ts ?? ""}:${body.user.id}`}`,
    chat: chatRef(channel, chatTypeOf(channel, undefined), threadTs),
    sender: { userId: body.user.id, displayName: body.user.name ?? body.user.username ?? body.user.id, isBot: false },
    timestamp: ctx.now(),
    actionId: action.action_id,
    messageId: messageTs,
  };
  return { kind: "deliver", event };
}

/** The form fields of a slash command the adapter reads. */
export interface SlackCommandBody {
  readonly command?: string;
  readonly text?: string;
  readonly user_id?: string;
  readonly user_name?: string;
  readonly channel_id?: string;
  readonly trigger_id?: string;
}

/**
 * `/hermes new` runs the gateway's /new, `/hermes` alone its /help; it acts
 * on the channel's (or DM's) own session, not a thread's — in a thread,
 * `!new` does that.
 */
export function translateCommand(body: SlackCommandBody, ctx: TranslateContext): Translation {
  if (body.command !== ctx.slashCommand) return skip(`slash command ${String(body.command)} is not ${ctx.slashCommand}`);
  if (!body.user_id || !body.channel_id || !body.trigger_id) return skip("slash command without a user, channel or trigger id");
  const args = (body.text ?? "").trim();
  const text = args === "" ? "/help" : /^[/!]/.test(args) ? `/${args.slice(1)}` : `/${args}`;
  const id = `command:${body.trigger_id}`;
  const event: InboundEvent = {
    kind: "message",
    eventId: id,
    chat: chatRef(body.channel_id, chatTypeOf(body.channel_id, undefined), undefined),
    sender: { userId: body.user_id, displayName: body.user_name ?? body.user_id, isBot: false },
    timestamp: ctx.now(),
    messageId: id,
    text,
    media: [],
    addressed: true,
  };
  return { kind: "deliver", event };
}

function chatRef(channel: string, chatType: ChatType, threadId: string | undefined): ChatRef {
  return { platform: PLATFORM, chatId: channel, chatType, ...(threadId ? { threadId } : {}) };
}

function skip(reason: string): Translation {
  return { kind: "skip", reason };
}
