/**
 * Session keys, as Hermes Agent's gateway forms them: one conversation per DM, per user in a group
 * by default, and one shared conversation per thread or forum topic.
 */
import type { ChatRef, Sender } from "../../adapters/types.js";

export interface SessionKeyOptions {
  /** Non-thread group chats get one session per participant. */
  readonly groupSessionsPerUser: boolean;
  /** Threads and topics get one session per participant too (shared by default). */
  readonly threadSessionsPerUser: boolean;
}

const NAMESPACE = "agent:main";

/** Whether several people talk in the session this chat maps to (their names then prefix their messages). */
export function isSharedSession(chat: ChatRef, opts: SessionKeyOptions): boolean {
  return chat.chatType !== "dm" && !perUser(chat, opts);
}

function perUser(chat: ChatRef, opts: SessionKeyOptions): boolean {
  const inThread = Boolean(chat.threadId) || chat.chatType === "thread";
  return opts.groupSessionsPerUser && (!inThread || opts.threadSessionsPerUser);
}

export function buildSessionKey(chat: ChatRef, sender: Pick<Sender, "userId">, opts: SessionKeyOptions): string {
  const parts = [NAMESPACE, chat.platform, chat.chatType];
  if (chat.chatType === "dm") {
    // A DM is already one person; the user id is never appended when a chat id exists.
    parts.push(chat.chatId || sender.userId);
    if (chat.threadId) parts.push(chat.threadId);
    return parts.join(":");
  }
  if (chat.chatId) parts.push(chat.chatId);
  if (chat.threadId) parts.push(chat.threadId);
  if (perUser(chat, opts)) parts.push(sender.userId);
  return parts.join(":");
}
