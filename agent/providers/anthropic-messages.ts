/**
 * The `anthropic_messages` StreamFn: the native Anthropic Messages API through
 * @anthropic-ai/sdk. Content blocks (text, thinking with signatures, tool_use
 * with input_json_delta fragments) are assembled per block index; prompt-cache
 * markers follow caching.ts (four breakpoints).
 */
import Anthropic from "@anthropic-ai/sdk";
import type { Logger } from "pino";
import type { ModelRequest, ProviderEvent, StreamFn, Usage } from "../types.js";
import { ZERO_USAGE } from "../types.js";
import {
  type AssembledBlock,
  anthropicFinishReason,
  anthropicSampling,
  anthropicUsage,
  fromAnthropicBlocks,
  toAnthropicMessages,
  toAnthropicTools,
} from "./convert-anthropic.js";
import { cacheTtlFor, headersFor, type ProviderConnection, runWire, sdkTimeoutMs, truncated, type WireSession } from "./stream-runner.js";

type Event = Anthropic.RawMessageStreamEvent;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Block = Mutable<AssembledBlock> & { toolIndex?: number; inputFromStart?: boolean };

export function anthropicMessagesStream(conn: ProviderConnection): StreamFn {
  return (request, signal) => runWire(conn, request, signal, anthropicSession(conn, request));
}

interface AnthropicState {
  /** By content-block index. */
  readonly blocks: Map<number, Block>;
  toolCount: number;
  usage: Usage;
  stopReason: string | null | undefined;
  sawStop: boolean;
}

function anthropicSession(conn: ProviderConnection, request: ModelRequest): WireSession<Event> {
  const s: AnthropicState = { blocks: new Map(), toolCount: 0, usage: ZERO_USAGE, stopReason: undefined, sawStop: false };
  return {
    open: async (signal, fetch) => {
      const client = new Anthropic({
        apiKey: conn.apiKey,
        baseURL: conn.baseUrl,
        maxRetries: 0,
        timeout: sdkTimeoutMs(conn),
        fetch,
        defaultHeaders: requestHeaders(conn, request),
        openTelemetry: false,
        ...(conn.logger ? { logger: sdkLogger(conn.logger), logLevel: "warn" as const } : { logLevel: "off" as const }),
      });
      return client.messages.create(requestBody(conn, request), { signal });
    },
    onChunk: (event) => onEvent(s, event),
    finish: () => finish(s, conn.provider),
  };
}

/** The connection's headers, without the 1M-context beta when the request must go without it. */
export function requestHeaders(conn: ProviderConnection, req: ModelRequest): Record<string, string> {
  const headers = headersFor(conn);
  if (!req.withoutLongContextBeta) return headers;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "anthropic-beta") out[name] = value;
    else {
      const kept = value
        .split(",")
        .map((b) => b.trim())
        .filter((b) => b && !b.startsWith("context-1m"));
      if (kept.length > 0) out[name] = kept.join(",");
    }
  }
  return out;
}

function requestBody(conn: ProviderConnection, req: ModelRequest): Anthropic.MessageCreateParamsStreaming {
  const cacheTtl = cacheTtlFor(conn, req.model);
  const { system, messages } = toAnthropicMessages(req.system, req.messages, { provider: conn.provider, ...(cacheTtl ? { cacheTtl } : {}) });
  const body: Record<string, unknown> = { model: req.model, messages, stream: true, ...anthropicSampling(req) };
  if (system) body.system = system;
  if (req.tools.length > 0) body.tools = toAnthropicTools(req);
  return { ...body, ...conn.extraBody } as unknown as Anthropic.MessageCreateParamsStreaming;
}

function onEvent(s: AnthropicState, e: Event): readonly ProviderEvent[] {
  switch (e.type) {
    case "message_start":
      s.usage = anthropicUsage(e.message.usage);
      return [];
    case "content_block_start":
      return onBlockStart(s, e.index, e.content_block);
    case "content_block_delta":
      return onBlockDelta(s, e.index, e.delta);
    case "message_delta":
      s.stopReason = e.delta.stop_reason ?? s.stopReason;
      s.usage = anthropicUsage(e.usage, s.usage);
      return [];
    case "message_stop":
      s.sawStop = true;
      return [];
    default:
      return []; // content_block_stop and future event types carry nothing we need
  }
}

function onBlockStart(s: AnthropicState, index: number, block: Anthropic.RawContentBlockStartEvent["content_block"]): ProviderEvent[] {
  switch (block.type) {
    case "text":
      s.blocks.set(index, { type: "text", text: block.text });
      return block.text ? [{ type: "text_delta", delta: block.text }] : [];
    case "thinking":
      s.blocks.set(index, { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" });
      return block.thinking ? [{ type: "reasoning_delta", delta: block.thinking }] : [];
    case "redacted_thinking":
      s.blocks.set(index, { type: "redacted_thinking", data: block.data });
      return [];
    case "tool_use": {
      const toolIndex = s.toolCount++;
      const input = block.input && typeof block.input === "object" && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
      s.blocks.set(index, { type: "tool_use", id: block.id, name: block.name, json: input, toolIndex, inputFromStart: input !== "" });
      const start: ProviderEvent = { type: "toolcall_start", index: toolIndex, id: block.id, name: block.name };
      return input ? [start, { type: "toolcall_delta", index: toolIndex, delta: input }] : [start];
    }
    default:
      return []; // server tools and other block types are not ours to assemble
  }
}

function onBlockDelta(s: AnthropicState, index: number, delta: Anthropic.RawContentBlockDelta): ProviderEvent[] {
  const b = s.blocks.get(index);
  if (!b) return [];
  if (delta.type === "text_delta" && b.type === "text") {
    b.text += delta.text;
    return [{ type: "text_delta", delta: delta.text }];
  }
  if (delta.type === "thinking_delta" && b.type === "thinking") {
    b.thinking += delta.thinking;
    return [{ type: "reasoning_delta", delta: delta.thinking }];
  }
  if (delta.type === "signature_delta" && b.type === "thinking") {
    b.signature += delta.signature;
    return [];
  }
  if (delta.type === "input_json_delta" && b.type === "tool_use") {
    if (b.inputFromStart) {
      b.json = ""; // deltas are authoritative when both are present
      b.inputFromStart = false;
    }
    b.json += delta.partial_json;
    return delta.partial_json ? [{ type: "toolcall_delta", index: b.toolIndex ?? 0, delta: delta.partial_json }] : [];
  }
  return [];
}

function finish(s: AnthropicState, provider: string) {
  if (!s.sawStop) throw truncated();
  const blocks = [...s.blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b as AssembledBlock);
  const message = fromAnthropicBlocks(blocks, s.stopReason, provider);
  return { message: { ...message, finish_reason: anthropicFinishReason(s.stopReason, (message.tool_calls?.length ?? 0) > 0) }, usage: s.usage };
}

/** The SDK logs through a console-like object; route it to pino without changing levels. */
function sdkLogger(logger: Logger) {
  const at =
    (level: "error" | "warn" | "info" | "debug") =>
    (message: string, ...rest: unknown[]) =>
      logger[level]({ sdk: "anthropic", ...(rest.length ? { detail: rest } : {}) }, message);
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}
