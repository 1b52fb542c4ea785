/**
 * The session-context facts that go into a session's system prompt (through
 * the agent's own block builder), and a minimal prompt builder for when the
 * composition root injects none.
 */
import type { ChatRef, Sender } from "../../adapters/types.js";
import { platformHint as agentPlatformHint, buildSessionContext } from "../../agent/index.js";
import type { HomeChannel, PromptBuilder } from "./ports.js";

/** The built-in hint for the platform, with the configured `hint` appended. */
export function platformHint(platform: string, configured: string | null): string {
  return agentPlatformHint(platform, configured ?? undefined) || `You are chatting through the ${platform} platform.`;
}

export function sessionContextBlock(chat: ChatRef, sender: Sender, shared: boolean, homes: readonly HomeChannel[], connected: readonly string[]): string {
  return buildSessionContext({
    platform: chat.platform,
    chatType: chat.chatType,
    chatId: chat.chatId,
    threadId: chat.threadId,
    ...(shared ? { multiUser: true } : { userName: sender.displayName, userId: sender.userId }),
    connectedPlatforms: connected,
    homeChannels: Object.fromEntries(homes.map((h) => [h.platform, h.name ?? h.chatId])),
  });
}

/** Used when no prompt builder is injected: identity, hint and context only. */
export const basicPromptBuilder: PromptBuilder = {
  build: async (ctx) => ({ text: ["You are Hermes, a helpful assistant with tools.", ctx.platformHint, ctx.sessionContext].join("\n\n"), notices: [] }),
};
