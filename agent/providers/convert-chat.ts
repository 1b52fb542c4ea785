/**
 * Provider-neutral history ⇄ OpenAI Chat Completions. The neutral format is
 * already chat-shaped, so this is mostly about what must NOT cross the wire
 * (reasoning, opaque provider items) and the `developer` role swap for models
 * that weigh it above `system` (see `usesDeveloperRole`).
 */
import type OpenAI from "openai";
import type { FinishReason, Message, ModelRequest, ToolSchema, Usage } from "../types.js";
import { applyChatCacheMarkers, type CacheTtl } from "./caching.js";
import { isOpenRouter, isReasoningFamily, omitsTemperature, usesDeveloperRole } from "./catalog.js";
import { capImages, repairToolPairs } from "./transform.js";

type ChatCompletionMessageParam = OpenAI.Chat.ChatCompletionMessageParam;
type ChatCompletionContentPart = OpenAI.Chat.ChatCompletionContentPart;
type ChatCompletionTool = OpenAI.Chat.ChatCompletionTool;
type ChatCompletionCreateParamsStreaming = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

export interface ChatConvertOptions {
  /** Put the system prompt in a `developer` message. Default: by model family. */
  readonly developerRole?: boolean;
  /** Anthropic-style cache_control markers (OpenRouter Claude). */
  readonly cacheTtl?: CacheTtl;
}

/** The `messages` array for chat.completions: system first, reasoning never sent back. */
export function toChatMessages(system: string, history: readonly Message[], model: string, opts: ChatConvertOptions = {}): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const developer = opts.developerRole ?? usesDeveloperRole(model);
  if (system) out.push(developer ? { role: "developer", content: system } : { role: "system", content: system });
  for (const m of repairToolPairs(capImages(history))) out.push(toChatMessage(m, developer));
  return opts.cacheTtl ? applyChatCacheMarkers(out, opts.cacheTtl) : out;
}

function toChatMessage(m: Message, developer: boolean): ChatCompletionMessageParam {
  switch (m.role) {
    case "system":
      return developer ? { role: "developer", content: m.content } : { role: "system", content: m.content };
    case "user":
      return { role: "user", content: typeof m.content === "string" ? m.content : m.content.map(toChatPart) };
    case "tool":
      return { role: "tool", tool_call_id: m.tool_call_id, content: m.content };
    case "assistant": {
      const calls = m.tool_calls?.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function.name, arguments: c.function.arguments } }));
      return calls?.length ? { role: "assistant", content: m.content ?? null, tool_calls: calls } : { role: "assistant", content: m.content ?? "" };
    }
  }
}

function toChatPart(p: Extract<Message, { role: "user" }>["content"][number] & object): ChatCompletionContentPart {
  return p.type === "text" ? { type: "text", text: p.text } : { type: "image_url", image_url: { url: p.image_url.url } };
}

export function toChatTools(tools: readonly ToolSchema[]): ChatCompletionTool[] {
  return tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: { ...t.parameters } } }));
}

/** The whole streaming request body. `extraBody` (auxiliary tasks) is merged last. */
export function chatRequestBody(
  req: ModelRequest,
  baseUrl: string,
  opts: ChatConvertOptions & { extraBody?: Readonly<Record<string, unknown>> } = {},
): ChatCompletionCreateParamsStreaming {
  const reasoning = isReasoningFamily(req.model);
  const body: Record<string, unknown> = {
    model: req.model,
    messages: toChatMessages(req.system, req.messages, req.model, opts),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) body.tools = toChatTools(req.tools);
  if (req.maxTokens !== undefined) body[reasoning ? "max_completion_tokens" : "max_tokens"] = req.maxTokens;
  if (req.temperature !== undefined && !omitsTemperature(req.model)) body.temperature = req.temperature;
  if (req.reasoningEffort) {
    // OpenRouter normalises reasoning across vendors under `reasoning`; OpenAI itself takes `reasoning_effort`.
    if (isOpenRouter(baseUrl)) body.reasoning = { effort: req.reasoningEffort };
    else if (reasoning) body.reasoning_effort = req.reasoningEffort;
  }
  return { ...body, ...opts.extraBody } as unknown as ChatCompletionCreateParamsStreaming;
}

/** Chat usage → neutral Usage. `prompt_tokens` includes cached tokens; ours does not. */
export function chatUsage(u: unknown): Usage {
  const r = asRecord(u);
  const prompt = num(r.prompt_tokens);
  const details = asRecord(r.prompt_tokens_details);
  const cacheRead = num(details.cached_tokens) || num(r.cache_read_input_tokens);
  const cacheWrite = num(details.cache_write_tokens) || num(r.cache_creation_input_tokens);
  return {
    input_tokens: Math.max(0, prompt - cacheRead - cacheWrite),
    output_tokens: num(r.completion_tokens),
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: num(asRecord(r.completion_tokens_details).reasoning_tokens),
  };
}

export function chatFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls && (reason === "tool_calls" || reason === "function_call" || reason === "stop" || !reason)) return "tool_calls";
  switch (reason) {
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      return "stop";
  }
}

export const asRecord = (v: unknown): Record<string, unknown> => (v && typeof v === "object" ? (v as Record<string, unknown>) : {});
export const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
