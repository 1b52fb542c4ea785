/**
 * Builders for what Slack sends an app (message and app_mention events,
 * block_actions clicks, slash commands), and a sender that posts them to an
 * HTTP endpoint signed the way Slack signs (`v0=` HMAC-SHA256 of
 * `v0:<timestamp>:<raw body>` with the signing secret).
 */
import { createHmac, randomBytes } from "node:crypto";
import { eventCallback } from "./slack-socket.js";
import { ALICE, BOT, type FakeMessage, type FakeUser, TEAM } from "./slack-state.js";

export const CHANNEL = "C0GENERAL";
export const DM_CHANNEL = "D0ALICE";

export interface MessageEventOpts {
  readonly channelType?: "channel" | "group" | "im" | "mpim";
  readonly subtype?: string;
  readonly botId?: string;
  readonly files?: readonly Record<string, unknown>[];
  readonly extra?: Record<string, unknown>;
}

/** A `message` event for a message already in the fake's state (so replies and threads can find it). */
export function messageEvent(m: FakeMessage, opts: MessageEventOpts = {}): Record<string, unknown> {
  return {
    type: "message",
    channel: m.channel,
    ...(m.user ? { user: m.user } : {}),
    text: m.text,
    ts: m.ts,
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    channel_type: opts.channelType ?? (m.channel.startsWith("D") ? "im" : "channel"),
    ...(opts.subtype ? { subtype: opts.subtype } : {}),
    ...(opts.botId ? { bot_id: opts.botId } : {}),
    ...(opts.files ? { files: opts.files } : {}),
    ...opts.extra,
  };
}

/** The `app_mention` event Slack sends beside the `message` event when the bot is mentioned. */
export function appMention(m: FakeMessage): Record<string, unknown> {
  return { type: "app_mention", channel: m.channel, user: m.user, text: m.text, ts: m.ts, ...(m.threadTs ? { thread_ts: m.threadTs } : {}) };
}

/** `<@U…>` as Slack writes a mention of the bot into message text. */
export const mentionBot = (text: string): string => `<@${BOT.id}> ${text}`;

/** A button click on a message the bot posted (block_actions). */
export function blockAction(opts: {
  user?: FakeUser;
  channel?: string;
  messageTs: string;
  threadTs?: string;
  actionId: string;
  value?: string;
  responseUrl?: string;
}): Record<string, unknown> {
  const user = opts.user ?? ALICE;
  const channel = opts.channel ?? CHANNEL;
  return {
    type: "block_actions",
    user: { id: user.id, username: user.name, name: user.name, team_id: TEAM.id },
    api_app_id: BOT.appId,
    token: "legacy-verification-token",
    container: {
      type: "message",
      message_ts: opts.messageTs,
      channel_id: channel,
      is_ephemeral: false,
      ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
    },
    trigger_id: `${Date.now()}.${randomBytes(4).toString("hex")}`,
    team: { id: TEAM.id, domain: TEAM.domain },
    channel: { id: channel, name: channel === CHANNEL ? "general" : "directmessage" },
    message: { type: "message", ts: opts.messageTs, user: BOT.id, bot_id: BOT.botId, text: "", ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}) },
    state: { values: {} },
    response_url: opts.responseUrl ?? "http://127.0.0.1:9/response-url-not-used",
    actions: [
      {
        action_id: opts.actionId,
        block_id: "hgw_prompt",
        text: { type: "plain_text", text: "button" },
        value: opts.value ?? opts.actionId,
        type: "button",
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/** A slash command invocation (the form fields Slack posts). */
export function slashCommand(opts: { command?: string; text: string; user?: FakeUser; channel?: string }): Record<string, string> {
  const user = opts.user ?? ALICE;
  const channel = opts.channel ?? CHANNEL;
  return {
    token: "legacy-verification-token",
    team_id: TEAM.id,
    team_domain: TEAM.domain,
    channel_id: channel,
    channel_name: channel.startsWith("D") ? "directmessage" : "general",
    user_id: user.id,
    user_name: user.name,
    command: opts.command ?? "/hermes",
    text: opts.text,
    api_app_id: BOT.appId,
    is_enterprise_install: "false",
    response_url: "http://127.0.0.1:9/commands-response-not-used",
    trigger_id: `${Date.now()}.${randomBytes(4).toString("hex")}`,
  };
}

export interface SignedPostOptions {
  /** Epoch seconds put in x-slack-request-timestamp (default now). */
  readonly timestamp?: number;
  /** Sign with this secret instead (a forged request). */
  readonly secret?: string;
  readonly retryNum?: number;
  readonly retryReason?: string;
}

export interface SignedReply {
  readonly status: number;
  readonly body: string;
}

/** Posts an Events API event to `url` as Slack does (JSON, signed). */
export function postEvent(url: string, secret: string, event: Record<string, unknown>, eventId: string, opts: SignedPostOptions = {}): Promise<SignedReply> {
  return postSigned(url, secret, JSON.stringify(eventCallback(event, eventId)), "application/json", opts);
}

/** Posts an interactive payload (form field `payload`, JSON inside), as Slack does for button clicks. */
export function postInteractive(url: string, secret: string, payload: Record<string, unknown>, opts: SignedPostOptions = {}): Promise<SignedReply> {
  return postSigned(url, secret, new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), "application/x-www-form-urlencoded", opts);
}

export function postSlashCommand(url: string, secret: string, fields: Record<string, string>, opts: SignedPostOptions = {}): Promise<SignedReply> {
  return postSigned(url, secret, new URLSearchParams(fields).toString(), "application/x-www-form-urlencoded", opts);
}

export async function postSigned(url: string, secret: string, body: string, contentType: string, opts: SignedPostOptions = {}): Promise<SignedReply> {
  const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac("sha256", opts.secret ?? secret)
    .update(`v0:${ts}:${body}`)
    .digest("hex")}`;
  const headers: Record<string, string> = { "content-type": contentType, "x-slack-request-timestamp": String(ts), "x-slack-signature": signature };
  if (opts.retryNum !== undefined) headers["x-slack-retry-num"] = String(opts.retryNum);
  if (opts.retryReason !== undefined) headers["x-slack-retry-reason"] = opts.retryReason;
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, body: await res.text() };
}
