/**
 * Anthropic prompt caching, as Hermes Agent lays it out:
 * four breakpoints, all with one TTL — the system prompt and the last three
 * messages that can carry a marker, or, with no system prompt, the last four.
 * A marker sits on a content part, never on the message envelope, so string
 * content becomes a one-part list. Thinking blocks cannot carry a marker, and
 * empty content has no part to carry one, so both are skipped (an empty
 * message never uses up a breakpoint). Pure functions: inputs are never mutated.
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

/** Anthropic honours at most four breakpoints per request. */
export const MAX_BREAKPOINTS = 4;

/** Alibaba-family routes keep a five-minute cache and reject the 1h tier. */
const FIVE_MINUTE_PROVIDERS = new Set(["opencode", "opencode-go", "opencode-zen", "alibaba"]);
/** Routes measured to keep a 1h marker, except for the models listed. */
const ONE_HOUR_PROVIDERS = new Set(["opencode-go"]);
const NO_ONE_HOUR_MODELS = new Set(["minimax-m2.5"]);

/**
 * The TTL a route supports for the one configured: "1h" becomes "5m" on Qwen
 * models and Alibaba-family providers (they reject the 1h tier), except where
 * the 1h tier was measured to work.
 */
export function effectiveCacheTtl(ttl: CacheTtl, model: string, provider: string): CacheTtl {
  if (ttl !== "1h") return ttl;
  const p = provider.toLowerCase();
  const bare = (model.split("/").at(-1) ?? "").toLowerCase();
  if (ONE_HOUR_PROVIDERS.has(p)) return NO_ONE_HOUR_MODELS.has(bare) ? "5m" : "1h";
  return model.toLowerCase().includes("qwen") || FIVE_MINUTE_PROVIDERS.has(p) ? "5m" : "1h";
}

/** Anthropic: the system prompt and the last three messages, or the last four without a system prompt. */
export function applyAnthropicCacheMarkers(
  system: string,
  messages: readonly MessageParam[],
  ttl: CacheTtl,
): { system: TextBlockParam[] | undefined; messages: MessageParam[] } {
  const marker = cacheMarker(ttl);
  const sys: TextBlockParam[] | undefined = system ? [{ type: "text", text: system, cache_control: { ...marker } }] : undefined;
  const carriers = messages.map((m, i) => (canCarryAnthropic(m) ? i : -1)).filter((i) => i >= 0);
  const marked = new Set(carriers.slice(-(MAX_BREAKPOINTS - (sys ? 1 : 0))));
  const out = messages.map((m, i) => (marked.has(i) ? markAnthropicMessage(m, marker) : m));
  return { system: sys, messages: out };
}

function canCarryAnthropic(m: MessageParam): boolean {
  if (typeof m.content === "string") return m.content !== "";
  return m.content.some((b) => markable(b as ContentBlockParam));
}

function markable(b: ContentBlockParam): boolean {
  return !(b.type === "thinking" || b.type === "redacted_thinking" || (b.type === "text" && !b.text));
}

function markAnthropicMessage(m: MessageParam, marker: CacheMarker): MessageParam {
  if (typeof m.content === "string") {
    return m.content ? { ...m, content: [{ type: "text", text: m.content, cache_control: { ...marker } }] } : m;
  }
  const blocks = [...m.content] as ContentBlockParam[];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i] as ContentBlockParam;
    if (!markable(b)) continue;
    blocks[i] = { ...b, cache_control: { ...marker } } as ContentBlockParam;
    return { ...m, content: blocks } as MessageParam;
  }
  return m;
}

type ChatPart = { type: string; text?: string; cache_control?: CacheMarker };

/**
 * Chat Completions (OpenRouter in front of Claude passes the markers through):
 * the leading system/developer message and the last three others that can
 * carry a marker, or the last four when there is no system message.
 */
export function applyChatCacheMarkers(messages: readonly ChatCompletionMessageParam[], ttl: CacheTtl): ChatCompletionMessageParam[] {
  const marker = cacheMarker(ttl);
  const isSystem = (m: ChatCompletionMessageParam | undefined) => m?.role === "system" || m?.role === "developer";
  const systemMarked = isSystem(messages[0]) && canCarryChat(messages[0] as ChatCompletionMessageParam);
  const carriers = messages.map((m, i) => (!isSystem(m) && canCarryChat(m) ? i : -1)).filter((i) => i >= 0);
  const marked = new Set(carriers.slice(-(MAX_BREAKPOINTS - (systemMarked ? 1 : 0))));
  if (systemMarked) marked.add(0);
  return messages.map((m, i) => (marked.has(i) ? markChatMessage(m, marker) : m));
}

/** Only a content part can carry a marker on this route: empty content has none. */
function canCarryChat(m: ChatCompletionMessageParam): boolean {
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") return content !== "";
  return Array.isArray(content) && content.length > 0 && typeof content.at(-1) === "object";
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
