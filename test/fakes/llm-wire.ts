/**
 * Wire encoders for the fake LLM server: one scripted reply → the SSE frames
 * (or JSON body) each real API sends, in the sequences the real SDKs accept
 * (checked against those SDKs by test/providers). Anthropic frames carry `event:`
 * lines (its SDK requires them); Chat frames end with `[DONE]`; Responses
 * frames start with `response.created` and carry `sequence_number`.
 */

export type FakeApi = "chat_completions" | "responses" | "anthropic_messages";

export interface FakeToolCall {
  readonly id?: string;
  readonly name: string;
  /** An object is JSON-encoded; a string is sent verbatim (it may be malformed on purpose). */
  readonly arguments?: string | Readonly<Record<string, unknown>>;
}

export interface FakeUsage {
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  readonly reasoning?: number;
}

/** A model answer: text and/or tool calls, optionally with reasoning, plus delivery faults. */
export interface FakeReply {
  readonly text?: string;
  readonly reasoning?: string;
  /** Anthropic thinking signature; default "sig-fake". Responses: encrypted_content of the reasoning item. */
  readonly signature?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  readonly usage?: FakeUsage;
  /** Stop reason in neutral terms; default: tool_calls when there are calls, else stop. */
  readonly finish?: "stop" | "length" | "tool_calls";
  /** Characters per text / argument fragment. Default 12. */
  readonly chunkChars?: number;
  /** Pause between SSE frames. Default 0. */
  readonly frameDelayMs?: number;
  /** Send this many frames, then nothing more while keeping the connection open. */
  readonly stallAfterFrames?: number;
  /** Send this many frames, then destroy the socket. */
  readonly disconnectAfterFrames?: number;
  /** After the content frames, report this in-band error instead of finishing. */
  readonly streamError?: { readonly message: string; readonly type?: string; readonly code?: string };
}

export interface WireContext {
  readonly model: string;
  /** Chat: whether the request asked for a usage chunk. */
  readonly includeUsage: boolean;
  /** Sequence number for ids. */
  readonly n: number;
}

export const DEFAULT_USAGE = Object.freeze({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 });

export function argsText(call: FakeToolCall): string {
  if (call.arguments === undefined) return "{}";
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

export function callId(call: FakeToolCall, i: number, n: number, api: FakeApi): string {
  return call.id ?? (api === "anthropic_messages" ? `toolu_${n}_${i}` : `call_${n}_${i}`);
}

export function pieces(text: string, size: number): string[] {
  if (text === "") return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const usageOf = (r: FakeReply) => ({ ...DEFAULT_USAGE, ...r.usage });
const finishOf = (r: FakeReply) => r.finish ?? (r.toolCalls?.length ? "tool_calls" : "stop");
const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

// ---------------------------------------------------------------- chat completions

export function chatFrames(r: FakeReply, ctx: WireContext): string[] {
  const id = `chatcmpl-${ctx.n}`;
  const size = r.chunkChars ?? 12;
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ id, object: "chat.completion.chunk", created: 1, model: ctx.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const frames = [chunk({ role: "assistant", content: null })];
  for (const p of pieces(r.reasoning ?? "", size)) frames.push(chunk({ reasoning_content: p }));
  for (const p of pieces(r.text ?? "", size)) frames.push(chunk({ content: p }));
  (r.toolCalls ?? []).forEach((c, i) => {
    frames.push(
      chunk({ tool_calls: [{ index: i, id: callId(c, i, ctx.n, "chat_completions"), type: "function", function: { name: c.name, arguments: "" } }] }),
    );
    for (const p of pieces(argsText(c), size)) frames.push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }));
  });
  if (r.streamError)
    return [...frames, sse({ error: { message: r.streamError.message, type: r.streamError.type ?? "server_error", code: r.streamError.code ?? null } })];
  const finish = finishOf(r);
  frames.push(chunk({}, finish));
  if (ctx.includeUsage) frames.push(sse({ id, object: "chat.completion.chunk", created: 1, model: ctx.model, choices: [], usage: chatUsage(r) }));
  frames.push(sse("[DONE]"));
  return frames;
}

function chatUsage(r: FakeReply) {
  const u = usageOf(r);
  const prompt = u.input + u.cacheRead + u.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, ...(u.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}) },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

export function chatJson(r: FakeReply, ctx: WireContext): unknown {
  const calls = (r.toolCalls ?? []).map((c, i) => ({
    id: callId(c, i, ctx.n, "chat_completions"),
    type: "function",
    function: { name: c.name, arguments: argsText(c) },
  }));
  const message = {
    role: "assistant",
    content: r.text ?? null,
    ...(calls.length ? { tool_calls: calls } : {}),
    ...(r.reasoning ? { reasoning_content: r.reasoning } : {}),
  };
  return {
    id: `chatcmpl-${ctx.n}`,
    object: "chat.completion",
    created: 1,
    model: ctx.model,
    choices: [{ index: 0, message, finish_reason: finishOf(r), logprobs: null }],
    usage: chatUsage(r),
  };
}

// ---------------------------------------------------------------- anthropic messages

const ANTHROPIC_STOP = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" } as const;

export function anthropicFrames(r: FakeReply, ctx: WireContext): string[] {
  const u = usageOf(r);
  const size = r.chunkChars ?? 12;
  const ev = (type: string, body: Record<string, unknown>) => sse({ type, ...body }, type);
  const message = {
    id: `msg_${ctx.n}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: u.input, output_tokens: 1, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite },
  };
  const frames = [ev("message_start", { message }), ev("ping", {})];
  let index = 0;
  if (r.reasoning) {
    frames.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const p of pieces(r.reasoning, size)) frames.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: p } }));
    frames.push(
      ev("content_block_delta", { index, delta: { type: "signature_delta", signature: r.signature ?? "sig-fake" } }),
      ev("content_block_stop", { index }),
    );
    index++;
  }
  if (r.text) {
    frames.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const p of pieces(r.text, size)) frames.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
    frames.push(ev("content_block_stop", { index }));
    index++;
  }
  (r.toolCalls ?? []).forEach((c, i) => {
    frames.push(
      ev("content_block_start", { index, content_block: { type: "tool_use", id: callId(c, i, ctx.n, "anthropic_messages"), name: c.name, input: {} } }),
    );
    for (const p of pieces(argsText(c), size)) frames.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }));
    frames.push(ev("content_block_stop", { index }));
    index++;
  });
  if (r.streamError) return [...frames, ev("error", { error: { type: r.streamError.type ?? "overloaded_error", message: r.streamError.message } })];
  frames.push(
    ev("message_delta", { delta: { stop_reason: ANTHROPIC_STOP[finishOf(r)], stop_sequence: null }, usage: { output_tokens: u.output } }),
    ev("message_stop", {}),
  );
  return frames;
}

export function anthropicJson(r: FakeReply, ctx: WireContext): unknown {
  const u = usageOf(r);
  const content = [
    ...(r.reasoning ? [{ type: "thinking", thinking: r.reasoning, signature: r.signature ?? "sig-fake" }] : []),
    ...(r.text ? [{ type: "text", text: r.text }] : []),
    ...(r.toolCalls ?? []).map((c, i) => ({ type: "tool_use", id: callId(c, i, ctx.n, "anthropic_messages"), name: c.name, input: safeParse(argsText(c)) })),
  ];
  return {
    id: `msg_${ctx.n}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    stop_reason: ANTHROPIC_STOP[finishOf(r)],
    stop_sequence: null,
    usage: { input_tokens: u.input, output_tokens: u.output, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite },
  };
}

// ---------------------------------------------------------------- responses

export function responsesFrames(r: FakeReply, ctx: WireContext): string[] {
  const size = r.chunkChars ?? 12;
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => sse({ type, sequence_number: seq++, ...body }, type);
  const items = responseItems(r, ctx);
  const base = { id: `resp_${ctx.n}`, object: "response", created_at: 1, model: ctx.model, status: "in_progress", output: [] as unknown[] };
  const frames = [ev("response.created", { response: base }), ev("response.in_progress", { response: base })];
  items.forEach((item, output_index) => {
    frames.push(ev("response.output_item.added", { output_index, item: startedItem(item) }));
    if (item.type === "reasoning") frames.push(...reasoningFrames(ev, output_index, item.id, r.reasoning ?? "", size));
    if (item.type === "message") frames.push(...textFrames(ev, output_index, item.id, r.text ?? "", size));
    if (item.type === "function_call") {
      for (const p of pieces(String(item.arguments), size))
        frames.push(ev("response.function_call_arguments.delta", { output_index, item_id: item.id, delta: p }));
      frames.push(ev("response.function_call_arguments.done", { output_index, item_id: item.id, arguments: item.arguments }));
    }
    frames.push(ev("response.output_item.done", { output_index, item }));
  });
  if (r.streamError) return [...frames, ev("error", { code: r.streamError.code ?? "server_error", message: r.streamError.message, param: null })];
  const incomplete = finishOf(r) === "length";
  const done = {
    ...base,
    status: incomplete ? "incomplete" : "completed",
    ...(incomplete ? { incomplete_details: { reason: "max_output_tokens" } } : {}),
    output: items,
    usage: responsesUsage(r),
  };
  frames.push(ev(incomplete ? "response.incomplete" : "response.completed", { response: done }));
  return frames;
}

type Item = Record<string, unknown> & { type: string; id: string };
type Ev = (type: string, body: Record<string, unknown>) => string;

/** A summary part must be announced before its deltas (the SDK's accumulator indexes into it). */
function reasoningFrames(ev: Ev, output_index: number, item_id: string, text: string, size: number): string[] {
  const at = { output_index, item_id, summary_index: 0 };
  return [
    ev("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } }),
    ...pieces(text, size).map((delta) => ev("response.reasoning_summary_text.delta", { ...at, delta })),
    ev("response.reasoning_summary_text.done", { ...at, text }),
    ev("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text } }),
  ];
}

/** Likewise an output_text content part before its deltas. */
function textFrames(ev: Ev, output_index: number, item_id: string, text: string, size: number): string[] {
  const at = { output_index, item_id, content_index: 0 };
  return [
    ev("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } }),
    ...pieces(text, size).map((delta) => ev("response.output_text.delta", { ...at, delta, logprobs: [] })),
    ev("response.output_text.done", { ...at, text, logprobs: [] }),
    ev("response.content_part.done", { ...at, part: { type: "output_text", text, annotations: [] } }),
  ];
}

function responseItems(r: FakeReply, ctx: WireContext): Item[] {
  const items: Item[] = [];
  if (r.reasoning)
    items.push({
      type: "reasoning",
      id: `rs_${ctx.n}`,
      summary: [{ type: "summary_text", text: r.reasoning }],
      encrypted_content: r.signature ?? `enc-${ctx.n}`,
    });
  if (r.text)
    items.push({
      type: "message",
      id: `msg_${ctx.n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: r.text, annotations: [] }],
    });
  (r.toolCalls ?? []).forEach((c, i) =>
    items.push({
      type: "function_call",
      id: `fc_${ctx.n}_${i}`,
      call_id: callId(c, i, ctx.n, "responses"),
      name: c.name,
      arguments: argsText(c),
      status: "completed",
    }),
  );
  return items;
}

function startedItem(item: Item): Item {
  if (item.type === "message") return { ...item, status: "in_progress", content: [] };
  if (item.type === "function_call") return { ...item, status: "in_progress", arguments: "" };
  if (item.type === "reasoning") return { ...item, summary: [] };
  return item;
}

function responsesUsage(r: FakeReply) {
  const u = usageOf(r);
  return {
    input_tokens: u.input + u.cacheRead,
    output_tokens: u.output,
    total_tokens: u.input + u.cacheRead + u.output,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

export function responsesJson(r: FakeReply, ctx: WireContext): unknown {
  return {
    id: `resp_${ctx.n}`,
    object: "response",
    created_at: 1,
    model: ctx.model,
    status: finishOf(r) === "length" ? "incomplete" : "completed",
    output: responseItems(r, ctx),
    usage: responsesUsage(r),
  };
}

// ---------------------------------------------------------------- errors

/** The error body each API uses, unless the script gave one. */
export function errorBody(api: FakeApi, status: number, message: string): unknown {
  if (api === "anthropic_messages") return { type: "error", error: { type: ANTHROPIC_ERROR_TYPES[status] ?? "api_error", message } };
  return { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", code: null, param: null } };
}

const ANTHROPIC_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
