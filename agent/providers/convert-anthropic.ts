/**
 * Provider-neutral history ⇄ Anthropic Messages, converted as Hermes Agent
 * converts it. The system prompt travels separately; tool calls become
 * tool_use blocks; tool results become tool_result blocks in user turns
 * (consecutive results share one turn); thinking blocks are replayed with
 * their signatures only to the provider that produced them (anything else
 * would fail signature verification). Anthropic rejects blank text, so blank
 * content becomes a placeholder — "(empty message)" for a user, "(empty)"
 * for an assistant, "(no output)" for a tool — instead of vanishing, and
 * unpaired tool calls and results are removed (anthropic-pairs.ts).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { AssistantMessage, ContentPart, FinishReason, Message, ModelRequest, ToolCall, Usage } from "../types.js";
import { stripOrphanedToolBlocks, type Turn } from "./anthropic-pairs.js";
import { toAnthropicInputSchema } from "./anthropic-schema.js";
import { applyAnthropicCacheMarkers, type CacheTtl } from "./caching.js";
import { asRecord, num } from "./convert-chat.js";
import { anthropicToolId, capImages, parseDataUrl, parseToolArguments } from "./transform.js";

export const EMPTY_USER = "(empty message)";
export const EMPTY_ASSISTANT = "(empty)";
export const EMPTY_TOOL_RESULT = "(no output)";

type Block = Anthropic.ContentBlockParam;
type ThinkingReplay = { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string };

/** What we store in `AssistantMessage.reasoning_details` after an Anthropic turn. */
export interface AnthropicReasoningDetails {
  readonly kind: "anthropic_thinking";
  /** The provider name that signed the blocks; replayed only to the same one. */
  readonly provider: string;
  readonly blocks: readonly ThinkingReplay[];
}

export interface AnthropicConvertOptions {
  /** Our provider name, for the same-provider check on thinking replay. */
  readonly provider: string;
  /** Absent: no cache markers. */
  readonly cacheTtl?: CacheTtl;
}

export interface AnthropicParams {
  readonly system: Anthropic.TextBlockParam[] | string | undefined;
  readonly messages: Anthropic.MessageParam[];
}

export function toAnthropicMessages(system: string, history: readonly Message[], opts: AnthropicConvertOptions): AnthropicParams {
  const systemParts = [system];
  const turns: Turn[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  for (const m of capImages(history)) {
    if (m.role === "system")
      systemParts.push(m.content); // stray system notes join the system prompt
    else if (m.role === "user") push("user", userBlocks(m.content));
    else if (m.role === "tool") push("user", [toolResultBlock(m.tool_call_id, m.content)]);
    else push("assistant", assistantBlocks(m, opts.provider));
  }
  stripOrphanedToolBlocks(turns);
  // Anthropic requires a user turn first (a compressed history may open with an assistant summary).
  if (turns[0]?.role === "assistant") turns.unshift({ role: "user", blocks: [{ type: "text", text: EMPTY_ASSISTANT }] });
  const messages: Anthropic.MessageParam[] = turns.map((t) => ({ role: t.role, content: t.blocks }));
  const fullSystem = systemParts.filter(Boolean).join("\n\n");
  if (opts.cacheTtl) return applyAnthropicCacheMarkers(fullSystem, messages, opts.cacheTtl);
  return { system: fullSystem || undefined, messages };
}

/** A user turn never vanishes: blank content becomes the placeholder. */
function userBlocks(content: string | readonly ContentPart[]): Block[] {
  const parts = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  const blocks = parts.flatMap((p): Block[] => (p.type === "text" ? (p.text.trim() ? [{ type: "text", text: p.text }] : []) : [imageBlock(p.image_url.url)]));
  return blocks.length ? blocks : [{ type: "text", text: EMPTY_USER }];
}

function imageBlock(url: string): Block {
  const data = parseDataUrl(url);
  if (data) {
    return { type: "image", source: { type: "base64", media_type: data.mediaType as "image/png", data: data.data } };
  }
  return { type: "image", source: { type: "url", url } };
}

function toolResultBlock(callId: string, content: string): Block {
  return { type: "tool_result", tool_use_id: anthropicToolId(callId), content: content.trim() ? content : EMPTY_TOOL_RESULT };
}

function assistantBlocks(m: AssistantMessage, provider: string): Block[] {
  const blocks: Block[] = [...replayableThinking(m.reasoning_details, provider)];
  if (m.content?.trim()) blocks.push({ type: "text", text: m.content });
  for (const c of m.tool_calls ?? []) {
    blocks.push({ type: "tool_use", id: anthropicToolId(c.id), name: c.function.name, input: parseToolArguments(c.function.arguments) });
  }
  // Thinking alone is no answer to replay: it needs a text or tool_use block beside it.
  return blocks.some((b) => b.type === "text" || b.type === "tool_use") ? blocks : [...blocks, { type: "text", text: EMPTY_ASSISTANT }];
}

/** Thinking blocks come back only to the provider that signed them. */
function replayableThinking(details: unknown, provider: string): Block[] {
  const d = asRecord(details);
  if (d.kind !== "anthropic_thinking" || d.provider !== provider || !Array.isArray(d.blocks)) return [];
  return (d.blocks as ThinkingReplay[]).filter(
    (b) => (b.type === "thinking" && typeof b.signature === "string" && b.signature) || (b.type === "redacted_thinking" && typeof b.data === "string"),
  );
}

/** Tool definitions with schemas Anthropic accepts (nullable unions collapsed, see anthropic-schema.ts). */
export function toAnthropicTools(req: ModelRequest): Anthropic.Tool[] {
  return req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: toAnthropicInputSchema(t.parameters) as Anthropic.Tool.InputSchema }));
}

const THINKING_BUDGET: Readonly<Record<"low" | "medium" | "high", number>> = { low: 2048, medium: 8192, high: 16384 };

/** Output cap when the request names none: older models have small ceilings. */
export function defaultMaxTokens(model: string): number {
  const m = model.toLowerCase();
  if (/claude-3-haiku|claude-3-(opus|sonnet)-/.test(m)) return 4096;
  if (/claude-3/.test(m)) return 8192;
  return 16_384;
}

/** max_tokens, temperature and thinking: thinking needs max_tokens above its budget and no temperature. */
export function anthropicSampling(req: ModelRequest): { max_tokens: number; temperature?: number; thinking?: Anthropic.ThinkingConfigParam } {
  const maxTokens = req.maxTokens ?? defaultMaxTokens(req.model);
  const effort = req.reasoningEffort;
  if (!effort || effort === "none") return req.temperature !== undefined ? { max_tokens: maxTokens, temperature: req.temperature } : { max_tokens: maxTokens };
  const budget = THINKING_BUDGET[effort];
  return { max_tokens: Math.max(maxTokens, budget + 4096), thinking: { type: "enabled", budget_tokens: budget } };
}

// ---------------------------------------------------------------- result → neutral

/** Content blocks as assembled from a stream (tool input still the raw JSON text). */
export type AssembledBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly json: string };

export function fromAnthropicBlocks(blocks: readonly AssembledBlock[], stopReason: string | null | undefined, provider: string): AssistantMessage {
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const thinking = blocks.filter(
    (b): b is Extract<AssembledBlock, { type: "thinking" | "redacted_thinking" }> => b.type === "thinking" || b.type === "redacted_thinking",
  );
  const calls: ToolCall[] = blocks.flatMap((b) =>
    b.type === "tool_use" ? [{ id: b.id, type: "function" as const, function: { name: b.name, arguments: b.json || "{}" } }] : [],
  );
  const reasoning = thinking.flatMap((b) => (b.type === "thinking" && b.thinking ? [b.thinking] : [])).join("\n");
  const details: AnthropicReasoningDetails | undefined = thinking.length ? { kind: "anthropic_thinking", provider, blocks: thinking.map(toReplay) } : undefined;
  return {
    role: "assistant",
    content: text || (calls.length ? null : ""),
    ...(calls.length ? { tool_calls: calls } : {}),
    ...(reasoning ? { reasoning } : {}),
    ...(details ? { reasoning_details: details } : {}),
    finish_reason: anthropicFinishReason(stopReason, calls.length > 0),
  };
}

function toReplay(b: Extract<AssembledBlock, { type: "thinking" | "redacted_thinking" }>): ThinkingReplay {
  return b.type === "thinking" ? { type: "thinking", thinking: b.thinking, signature: b.signature } : { type: "redacted_thinking", data: b.data };
}

export function anthropicFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

/** Anthropic reports input excluding cache reads and writes, which is our convention too. */
export function anthropicUsage(u: unknown, prior?: Usage): Usage {
  const r = asRecord(u);
  const pick = (key: string, fallback: number) => (typeof r[key] === "number" ? num(r[key]) : fallback);
  return {
    input_tokens: pick("input_tokens", prior?.input_tokens ?? 0),
    output_tokens: pick("output_tokens", prior?.output_tokens ?? 0),
    cache_read_tokens: pick("cache_read_input_tokens", prior?.cache_read_tokens ?? 0),
    cache_write_tokens: pick("cache_creation_input_tokens", prior?.cache_write_tokens ?? 0),
    reasoning_tokens: prior?.reasoning_tokens ?? 0,
  };
}
