/**
 * Where messages the agent did not get as a reply go: cron output,
 * send_message, the start and restart notices. One resolution for all of
 * them:
 *
 * - targets are parsed as Hermes Agent parses them: `origin` (the chat the
 *   work came from), `local` (kept, not sent), `<platform>` (its home
 *   channel), `<platform>:<chat_id>[:<thread_id>]` (ids as written); any
 *   other word means `local`;
 * - a platform's home channel is the chat set with /sethome, else the
 *   configured `gateway.platforms.<platform>.home_channel` (`chat_id` or
 *   `chat_id:thread_id`);
 * - the agent may message only the chats the configuration allows: its own
 *   chat, every home channel, and the chats and users the platform's
 *   allowlists name (never `*`).
 */
import type { ChatRef, ChatType } from "../../adapters/types.js";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/index.js";
import type { RuntimeCore } from "./core.js";
import type { HomeChannel } from "./ports.js";

export type ParsedTarget =
  | { readonly kind: "origin" }
  | { readonly kind: "local" }
  | { readonly kind: "home"; readonly platform: string }
  | { readonly kind: "chat"; readonly platform: string; readonly chatId: string; readonly threadId?: string };

/** Platform names a bare target may be. */
const PLATFORM_NAMES = new Set(["telegram", "discord", "slack", "api"]);

export function parseTarget(raw: string): ParsedTarget {
  const t = raw.trim();
  const lower = t.toLowerCase();
  if (lower === "origin") return { kind: "origin" };
  const colon = t.indexOf(":");
  if (colon < 0) return PLATFORM_NAMES.has(lower) ? { kind: "home", platform: lower } : { kind: "local" };
  const platform = t.slice(0, colon).toLowerCase();
  const [chatId = "", threadId] = t.slice(colon + 1).split(":");
  if (!PLATFORM_NAMES.has(platform) || !chatId) return { kind: "local" };
  return { kind: "chat", platform, chatId, ...(threadId ? { threadId } : {}) };
}

/** The target string naming `chat`. */
export function targetOf(chat: Pick<ChatRef, "platform" | "chatId" | "threadId">): string {
  return `${chat.platform}:${chat.chatId}${chat.threadId ? `:${chat.threadId}` : ""}`;
}

/** A chat known only by its ids: a thread when it has one, a group when its id says so (Telegram's negative ids), else a DM. */
export function chatRefOf(platform: string, chatId: string, threadId?: string | null): ChatRef {
  const chatType: ChatType = threadId ? "thread" : chatId.startsWith("-") ? "group" : "dm";
  return { platform, chatId, chatType, ...(threadId ? { threadId } : {}) };
}

type Blocks = Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;

/** The platform's home channel: /sethome's choice, else the configured one; null when neither. */
export function homeChannel(core: Pick<RuntimeCore, "store" | "config">, platform: string): ChatRef | null {
  const stored = core.store.getHomeChannel(platform);
  if (stored) return chatRefOf(platform, stored.chatId, stored.threadId);
  const configured = (core.config.gateway.platforms as Blocks)[platform]?.home_channel;
  if (typeof configured !== "string" || !configured.trim()) return null;
  const [chatId = "", threadId] = configured.trim().split(":");
  return chatId ? chatRefOf(platform, chatId, threadId) : null;
}

/** What a target resolves to: a chat, or `local` (nothing is sent). Throws HGW_ERR_TARGET_* when it names nothing usable. */
export function resolveTarget(core: Pick<RuntimeCore, "store" | "config">, raw: string, origin: ChatRef | null): ChatRef | "local" {
  const t = parseTarget(raw);
  switch (t.kind) {
    case "local":
      return "local";
    case "origin":
      if (!origin) throw new HermesError("HGW_ERR_TARGET_INVALID", `"origin" names no chat here (the work did not come from a chat).`);
      return origin;
    case "home": {
      const home = homeChannel(core, t.platform);
      if (!home) throw new HermesError("HGW_ERR_TARGET_NO_HOME", `(${t.platform})`);
      return home;
    }
    case "chat":
      return chatRefOf(t.platform, t.chatId, t.threadId);
  }
}

/** The home channels of `platforms` that have one, for the session-context block. */
export function homeChannels(core: Pick<RuntimeCore, "store" | "config">, platforms: readonly string[]): HomeChannel[] {
  return platforms.flatMap((platform) => {
    const h = homeChannel(core, platform);
    return h ? [{ platform, chatId: h.chatId, threadId: h.threadId ?? null, name: core.store.getHomeChannel(platform)?.name ?? null }] : [];
  });
}

export interface AllowedChat {
  readonly chat: ChatRef;
  readonly description: string;
}

/** Chat lists in the platform blocks that name chats the bot may write to, with how to describe them. */
const CHAT_LISTS: readonly (readonly [string, string])[] = [
  ["group_allowed_chats", "allowed group"],
  ["free_response_chats", "free-response chat"],
  ["allowed_channels", "allowed channel"],
  ["free_response_channels", "free-response channel"],
];

/**
 * Every chat the agent may message on the connected platforms (`platforms`): `origin`, each home channel, and the
 * allowlists' chats. Telegram users' DMs count too (a Telegram user's DM has the user's id). Deduplicated.
 */
export function allowedChats(core: Pick<RuntimeCore, "store" | "config">, platforms: readonly string[], origin: ChatRef | null): AllowedChat[] {
  const out: AllowedChat[] = [];
  const add = (chat: ChatRef, description: string) => {
    if (!platforms.includes(chat.platform) || chat.platform === "api") return;
    if (!out.some((a) => a.chat.platform === chat.platform && a.chat.chatId === chat.chatId && a.chat.threadId === chat.threadId))
      out.push({ chat, description });
  };
  if (origin) add(origin, "this chat");
  for (const p of platforms) {
    const home = homeChannel(core, p);
    if (home) add(home, `${p} home channel`);
    for (const [key, what] of listedChats(core.config, p)) add(chatRefOf(p, key), what);
  }
  return out;
}

function listedChats(config: Config, platform: string): [string, string][] {
  const block = (config.gateway.platforms as Blocks)[platform];
  if (!block) return [];
  const ids = (key: string) => (Array.isArray(block[key]) ? (block[key] as string[]).filter((id) => id !== "*") : []);
  const chats = CHAT_LISTS.flatMap(([key, what]) => ids(key).map((id): [string, string] => [id, what]));
  const dms = platform === "telegram" ? ids("allowed_users").map((id): [string, string] => [id, "allowed user (DM)"]) : [];
  return [...chats, ...dms];
}

/** Whether `chat` is one of `allowed` (a thread of an allowed chat is allowed too). */
export function isAllowedChat(allowed: readonly AllowedChat[], chat: ChatRef): boolean {
  return allowed.some(
    (a) => a.chat.platform === chat.platform && a.chat.chatId === chat.chatId && (a.chat.threadId === undefined || a.chat.threadId === chat.threadId),
  );
}
