/**
 * Who may use the bot (the rules of Hermes Agent's gateway). One function, used for messages and
 * for every button click alike; anything not explicitly allowed is denied.
 */
import type { ChatRef, Sender } from "../../adapters/types.js";
import type { PlatformSettings } from "./platform-settings.js";

export type AuthVia = "upstream" | "owner" | "group-chat" | "bot" | "allow-all" | "role" | "pairing" | "allowlist" | "group-allowlist" | "global-allowlist";
export type AuthResult = { readonly ok: true; readonly via: AuthVia } | { readonly ok: false };

export interface GlobalAuth {
  readonly allowedUsers: readonly string[];
  readonly allowAllUsers: boolean;
}

const isGroupish = (chat: ChatRef) => chat.chatType !== "dm";

function listed(list: readonly string[], id: string): boolean {
  if (list.includes("*") || list.includes(id)) return true;
  // `user@domain` entries also match by local part (Slack/email style ids).
  const at = id.indexOf("@");
  return at > 0 && list.includes(id.slice(0, at));
}

/**
 * Where the bot answers at all, before who: an ignored channel, or one outside a
 * non-empty `allowed_channels`, admits nobody (messages and clicks alike). A
 * thread is matched by its own id and by its parent channel's.
 */
function channelAllowed(chat: ChatRef, p: PlatformSettings): boolean {
  const ids = chat.threadId ? [chat.chatId, chat.threadId] : [chat.chatId];
  if (ids.some((id) => p.ignoredChannels.includes(id))) return false;
  return p.allowedChannels.length === 0 || ids.some((id) => listed(p.allowedChannels, id));
}

export function authorize(
  chat: ChatRef,
  sender: Sender,
  p: PlatformSettings,
  g: GlobalAuth,
  isPaired: (platform: string, userId: string) => boolean,
): AuthResult {
  if (p.upstreamAuth) return { ok: true, via: "upstream" };
  if (p.owner !== null && sender.userId === p.owner) return { ok: true, via: "owner" };
  if (isGroupish(chat) && !channelAllowed(chat, p)) return { ok: false };
  if (isGroupish(chat) && listed(p.groupAllowedChats, chat.chatId)) return { ok: true, via: "group-chat" };
  if (sender.isBot && p.allowBots) return { ok: true, via: "bot" };
  if (!sender.userId) return { ok: false };
  if (p.allowAllUsers || g.allowAllUsers) return { ok: true, via: "allow-all" };
  if (sender.roles?.some((r) => p.allowedRoles.includes(r))) return { ok: true, via: "role" };
  if (isPaired(chat.platform, sender.userId)) return { ok: true, via: "pairing" };
  if (listed(p.allowedUsers, sender.userId)) return { ok: true, via: "allowlist" };
  if (isGroupish(chat) && listed(p.groupAllowedUsers, sender.userId)) return { ok: true, via: "group-allowlist" };
  if (listed(g.allowedUsers, sender.userId)) return { ok: true, via: "global-allowlist" };
  return { ok: false };
}
