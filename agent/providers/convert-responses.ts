/**
 * Provider-neutral history ⇄ OpenAI Responses API input items. Tool calls
 * become `function_call` items and results `function_call_output` items; the
 * system prompt goes in `instructions`. We run with `store: false`, so
 * reasoning survives between turns only as encrypted reasoning items, which are
 * replayed (to the provider that issued them) just before the turn they belong to.
 */
import type OpenAI from "openai";
import type { AssistantMessage, ContentPart, FinishReason, Message, ModelRequest, ToolCall, Usage } from "../types.js";
import { hostOf, isReasoningFamily } from "./catalog.js";
import { asRecord, num } from "./convert-chat.js";
import { capImages, repairToolPairs } from "./transform.js";

type InputItem = OpenAI.Responses.ResponseInputItem;

/** What we store in `AssistantMessage.codex_reasoning_items`. A bare array is also accepted on input. */
export interface ResponsesReasoningItems {
  readonly kind: "responses_reasoning";
  readonly provider: string;
  readonly items: readonly Record<string, unknown>[];
}

export function toResponsesInput(history: readonly Message[], provider: string): InputItem[] {
  const out: InputItem[] = [];
  for (const m of repairToolPairs(capImages(history))) {
    switch (m.role) {
      case "system":
        out.push({ role: "developer", content: m.content });
        break;
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : m.content.map(toInputPart) });
        break;
      case "tool":
        out.push({ type: "function_call_output", call_id: m.tool_call_id, output: m.content });
        break;
      case "assistant":
        out.push(...assistantItems(m, provider));
        break;
    }
  }
  return out;
}

function toInputPart(p: ContentPart): OpenAI.Responses.ResponseInputContent {
  return p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: p.image_url.url, detail: "auto" };
}

function assistantItems(m: AssistantMessage, provider: string): InputItem[] {
  const items = replayableReasoning(m.codex_reasoning_items, provider) as unknown as InputItem[];
  if (m.content) items.push({ role: "assistant", content: m.content });
  for (const c of m.tool_calls ?? []) items.push({ type: "function_call", call_id: c.id, name: c.function.name, arguments: c.function.arguments });
  return items;
}

function replayableReasoning(stored: unknown, provider: string): Record<string, unknown>[] {
  if (Array.isArray(stored)) return stored.filter(isReasoningItem);
  const s = asRecord(stored);
  if (s.kind !== "responses_reasoning" || s.provider !== provider || !Array.isArray(s.items)) return [];
  return s.items.filter(isReasoningItem);
}

/** Without server-side storage only items carrying encrypted content can be replayed. */
const isReasoningItem = (v: unknown): v is Record<string, unknown> => asRecord(v).type === "reasoning" && typeof asRecord(v).encrypted_content === "string";

export function toResponsesTools(req: ModelRequest): OpenAI.Responses.FunctionTool[] {
  return req.tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: { ...t.parameters }, strict: false }));
}

export interface ResponsesBodyOptions {
  readonly provider: string;
  readonly baseUrl: string;
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

export function responsesRequestBody(req: ModelRequest, opts: ResponsesBodyOptions): OpenAI.Responses.ResponseCreateParamsStreaming {
  // The ChatGPT Codex backend refuses sampling knobs; the public API accepts them.
  const codexBackend = hostOf(opts.baseUrl) === "chatgpt.com";
  const reasoning = isReasoningFamily(req.model) || (req.reasoningEffort !== undefined && req.reasoningEffort !== "none");
  const body: Record<string, unknown> = {
    model: req.model,
    input: toResponsesInput(req.messages, opts.provider),
    stream: true,
    store: false,
  };
  if (req.system) body.instructions = req.system;
  if (req.tools.length > 0) Object.assign(body, { tools: toResponsesTools(req), tool_choice: "auto", parallel_tool_calls: true });
  if (reasoning) body.include = ["reasoning.encrypted_content"];
  if (req.reasoningEffort) body.reasoning = { effort: req.reasoningEffort, summary: "auto" };
  if (req.maxTokens !== undefined && !codexBackend) body.max_output_tokens = req.maxTokens;
  if (req.temperature !== undefined && !codexBackend && !isReasoningFamily(req.model)) body.temperature = req.temperature;
  return { ...body, ...opts.extraBody } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
}

// ---------------------------------------------------------------- result → neutral

export function fromResponsesOutput(output: readonly unknown[], provider: string, status?: string, incompleteReason?: string): AssistantMessage {
  const items = output.map(asRecord);
  const text = items
    .filter((i) => i.type === "message")
    .flatMap((i) => messageText(i.content))
    .join("");
  const calls: ToolCall[] = items
    .filter((i) => i.type === "function_call")
    .map((i) => ({
      id: String(i.call_id ?? i.id ?? ""),
      type: "function",
      function: { name: String(i.name ?? ""), arguments: String(i.arguments ?? "") || "{}" },
    }));
  const reasoningItems = items.filter((i) => i.type === "reasoning");
  const reasoning = reasoningItems.flatMap((i) => reasoningText(i)).join("\n");
  const replay = reasoningItems.filter(isReasoningItem);
  const stored: ResponsesReasoningItems | undefined = replay.length ? { kind: "responses_reasoning", provider, items: replay } : undefined;
  return {
    role: "assistant",
    content: text || (calls.length ? null : ""),
    ...(calls.length ? { tool_calls: calls } : {}),
    ...(reasoning ? { reasoning } : {}),
    ...(stored ? { codex_reasoning_items: stored } : {}),
    finish_reason: responsesFinishReason(status, incompleteReason, calls.length > 0),
  };
}

function messageText(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content
    .map(asRecord)
    .flatMap((c) =>
      c.type === "output_text" && typeof c.text === "string" ? [c.text] : c.type === "refusal" && typeof c.refusal === "string" ? [c.refusal] : [],
    );
}

function reasoningText(item: Record<string, unknown>): string[] {
  const parts = [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])].map(asRecord);
  return parts.flatMap((p) => (typeof p.text === "string" && p.text ? [p.text] : []));
}

export function responsesFinishReason(status: string | undefined, incompleteReason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (status === "incomplete") return incompleteReason === "content_filter" ? "content_filter" : "length";
  return hasToolCalls ? "tool_calls" : "stop";
}

/** Responses usage → neutral. `input_tokens` includes cached tokens; ours does not. */
export function responsesUsage(u: unknown): Usage {
  const r = asRecord(u);
  const cached = num(asRecord(r.input_tokens_details).cached_tokens);
  return {
    input_tokens: Math.max(0, num(r.input_tokens) - cached),
    output_tokens: num(r.output_tokens),
    cache_read_tokens: cached,
    cache_write_tokens: 0,
    reasoning_tokens: num(asRecord(r.output_tokens_details).reasoning_tokens),
  };
}
