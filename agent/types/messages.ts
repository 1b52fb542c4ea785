/**
 * Messages in Hermes Agent's OpenAI-style format: the provider-neutral
 * history every layer keeps, converted for a target API only at its boundary,
 * and the token usage of one model call.
 */

export interface ToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string /** Always valid JSON once in history. */; readonly arguments: string };
}

/** A content part for multimodal user messages (vision). */
export type ContentPart = { readonly type: "text"; readonly text: string } | { readonly type: "image_url"; readonly image_url: { readonly url: string } };

export interface SystemMessage {
  readonly role: "system";
  readonly content: string;
}
export interface UserMessage {
  readonly role: "user";
  readonly content: string | readonly ContentPart[];
}
export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
  /** Chain-of-thought: persisted and displayed, never sent back to a provider. */
  readonly reasoning?: string;
  /** Provider-specific opaque items needed to continue a conversation (Anthropic thinking signatures, Codex items). */
  readonly reasoning_details?: unknown;
  readonly codex_reasoning_items?: unknown;
  readonly finish_reason?: FinishReason;
}
export interface ToolMessage {
  readonly role: "tool";
  readonly tool_call_id: string;
  readonly tool_name?: string;
  readonly content: string;
}
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
export type Role = Message["role"];
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

/**
 * Token counts for one model call. `input_tokens` excludes cached tokens, so the
 * prompt size is `input_tokens + cache_read_tokens + cache_write_tokens`
 * (providers that report an inclusive prompt count are normalised to this).
 */
export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_tokens: number;
  readonly cache_write_tokens: number;
  readonly reasoning_tokens: number;
}
export const ZERO_USAGE: Usage = Object.freeze({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 });
