/**
 * The `chat_completions` StreamFn: OpenAI-compatible endpoints (OpenRouter,
 * OpenAI, vLLM, llama.cpp, …) through the openai SDK with streaming and usage.
 * Tool calls arrive as fragments keyed by index and are assembled here; the
 * assembled argument text is passed on raw, even when it is not valid JSON
 * (the loop repairs it).
 */
import OpenAI from "openai";
import type { ModelRequest, ProviderEvent, StreamFn, ToolCall, Usage } from "../types.js";
import { ZERO_USAGE } from "../types.js";
import { asRecord, chatFinishReason, chatRequestBody, chatUsage } from "./convert-chat.js";
import { cacheTtlFor, generatedCallId, headersFor, type ProviderConnection, runWire, sdkTimeoutMs, truncated, type WireSession } from "./stream-runner.js";

type Chunk = OpenAI.Chat.ChatCompletionChunk;
type ToolDelta = OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall;

export function chatCompletionsStream(conn: ProviderConnection): StreamFn {
  return (request, signal) => runWire(conn, request, signal, chatSession(conn, request));
}

interface CallAcc {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

interface ChatState {
  text: string;
  reasoning: string;
  readonly calls: CallAcc[];
  /** Wire index → position in `calls`. */
  readonly byIndex: Map<number, number>;
  finish: string | null | undefined;
  sawFinish: boolean;
  usage: Usage;
}

/** The openai SDK client for one request on `conn`: no SDK retries (ours decide), the guard's fetch, no ambient org/project. */
export function openaiClient(conn: ProviderConnection, fetch: typeof globalThis.fetch): OpenAI {
  return new OpenAI({
    apiKey: conn.apiKey,
    baseURL: conn.baseUrl,
    maxRetries: 0,
    timeout: sdkTimeoutMs(conn),
    fetch,
    defaultHeaders: headersFor(conn),
    organization: null,
    project: null,
  });
}

function chatSession(conn: ProviderConnection, request: ModelRequest): WireSession<Chunk> {
  const s: ChatState = { text: "", reasoning: "", calls: [], byIndex: new Map(), finish: undefined, sawFinish: false, usage: ZERO_USAGE };
  return {
    open: async (signal, fetch) => {
      const client = openaiClient(conn, fetch);
      const cacheTtl = cacheTtlFor(conn, request.model);
      const body = chatRequestBody(request, conn.baseUrl, { ...(cacheTtl ? { cacheTtl } : {}), ...(conn.extraBody ? { extraBody: conn.extraBody } : {}) });
      return client.chat.completions.create(body, { signal });
    },
    onChunk: (chunk) => onChunk(s, chunk),
    finish: () => finish(s),
  };
}

function onChunk(s: ChatState, chunk: Chunk): ProviderEvent[] {
  if (chunk.usage) s.usage = chatUsage(chunk.usage);
  const choice = chunk.choices?.[0];
  if (!choice) return [];
  const events: ProviderEvent[] = [];
  const delta = asRecord(choice.delta);
  const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
  if (reasoning) {
    s.reasoning += reasoning;
    events.push({ type: "reasoning_delta", delta: reasoning });
  }
  if (typeof delta.content === "string" && delta.content) {
    s.text += delta.content;
    events.push({ type: "text_delta", delta: delta.content });
  }
  for (const d of (choice.delta?.tool_calls ?? []) as ToolDelta[]) events.push(...onToolDelta(s, d));
  if (choice.finish_reason) {
    s.finish = choice.finish_reason;
    s.sawFinish = true;
  }
  return events;
}

/** Some providers reuse index 0 for every call but give each a new id: a new id starts a new call. */
function onToolDelta(s: ChatState, d: ToolDelta): ProviderEvent[] {
  const wireIndex = d.index ?? 0;
  const slot = s.byIndex.get(wireIndex);
  let acc = slot === undefined ? undefined : s.calls[slot];
  if (acc && d.id && acc.id && d.id !== acc.id) acc = undefined;
  if (!acc) {
    acc = { id: "", name: "", args: "", started: false };
    s.calls.push(acc);
    s.byIndex.set(wireIndex, s.calls.length - 1);
  }
  const index = s.calls.indexOf(acc);
  const events: ProviderEvent[] = [];
  if (d.id && !acc.id) acc.id = d.id;
  if (d.function?.name && !acc.started) acc.name += d.function.name;
  if (!acc.started && acc.name) {
    acc.started = true;
    acc.id ||= generatedCallId();
    events.push({ type: "toolcall_start", index, id: acc.id, name: acc.name });
    if (acc.args) events.push({ type: "toolcall_delta", index, delta: acc.args });
  }
  const piece = d.function?.arguments;
  if (piece) {
    acc.args += piece;
    if (acc.started) events.push({ type: "toolcall_delta", index, delta: piece });
  }
  return events;
}

function finish(s: ChatState) {
  if (!s.sawFinish) throw truncated();
  const calls: ToolCall[] = s.calls
    .filter((c) => c.name)
    .map((c) => ({ id: c.id || generatedCallId(), type: "function", function: { name: c.name, arguments: c.args || "{}" } }));
  const message = {
    role: "assistant" as const,
    content: s.text || (calls.length ? null : ""),
    ...(calls.length ? { tool_calls: calls } : {}),
    ...(s.reasoning ? { reasoning: s.reasoning } : {}),
    finish_reason: chatFinishReason(s.finish, calls.length > 0),
  };
  return { message, usage: s.usage };
}
