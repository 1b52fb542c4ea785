/**
 * Anthropic prompt caching, strategy "system_and_3" (deep-dive notes §8): four
 * breakpoints — the system prompt and the last three non-system messages — all
 * with the same TTL. A marker sits on a content part, never on the message
 * envelope, so string content becomes a one-part list. Thinking blocks cannot
 * carry a marker, and empty text blocks are rejected, so both are skipped.
 * Pure functions: inputs are never mutated.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";

type ChatCompletionMessageParam = OpenAI.Chat.ChatCompletionMessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
type MessageParam = Anthropic.MessageParam;
type TextBlockParam = Anthropic.TextBlockParam;

export type CacheTtl = "5m" | "1h";

export interface CacheMarker {
  readonly type: "ephemeral";
  readonly ttl?: "1h";
}

/** 5m is the API default, so it is sent without a ttl field. */
export function cacheMarker(ttl: CacheTtl): CacheMarker {
  return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

const MESSAGE_BREAKPOINTS = 3;

/** Anthropic: the system blocks and the last three messages. */
export function applyAnthropicCacheMarkers(system: string, messages: readonly MessageParam[], ttl: CacheTtl): { system: TextBlockParam[] | undefined; messages: MessageParam[] } {
  const marker = cacheMarker(ttl);
  const sys: TextBlockParam[] | undefined = system ? [{ type: "text", text: system, cache_control: { ...marker } }] : undefined;
  const firstMarked = messages.length - MESSAGE_BREAKPOINTS;
  const out = messages.map((m, i) => (i >= firstMarked ? markAnthropicMessage(m, marker) : m));
  return { system: sys, messages: out };
}

function markAnthropicMessage(m: MessageParam, marker: CacheMarker): MessageParam {
  if (typeof m.content === "string") {
    return m.content ? { ...m, content: [{ type: "text", text: m.content, cache_control: { ...marker } }] } : m;
  }
  const blocks = [...m.content] as ContentBlockParam[];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i] as ContentBlockParam;
    if (b.type === "thinking" || b.type === "redacted_thinking" || (b.type === "text" && !b.text)) continue;
    blocks[i] = { ...b, cache_control: { ...marker } } as ContentBlockParam;
    return { ...m, content: blocks } as MessageParam;
  }
  return m;
}

type ChatPart = { type: string; text?: string; cache_control?: CacheMarker };

/**
 * Chat Completions (OpenRouter in front of Claude passes the markers through):
 * the system/developer message and the last three others.
 */
export function applyChatCacheMarkers(messages: readonly ChatCompletionMessageParam[], ttl: CacheTtl): ChatCompletionMessageParam[] {
  const marker = cacheMarker(ttl);
  const nonSystem = messages.map((m, i) => (m.role === "system" || m.role === "developer" ? -1 : i)).filter((i) => i >= 0);
  const marked = new Set(nonSystem.slice(-MESSAGE_BREAKPOINTS));
  return messages.map((m, i) => {
    const isSystem = (m.role === "system" || m.role === "developer") && i === 0;
    return isSystem || marked.has(i) ? markChatMessage(m, marker) : m;
  });
}

function markChatMessage(m: ChatCompletionMessageParam, marker: CacheMarker): ChatCompletionMessageParam {
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") {
    const parts: ChatPart[] = [{ type: "text", text: content, cache_control: { ...marker } }];
    return content ? ({ ...m, content: parts } as ChatCompletionMessageParam) : m;
  }
  if (!Array.isArray(content) || content.length === 0) return m;
  const parts = [...(content as ChatPart[])];
  const last = parts[parts.length - 1] as ChatPart;
  parts[parts.length - 1] = { ...last, cache_control: { ...marker } };
  return { ...m, content: parts } as ChatCompletionMessageParam;
}
