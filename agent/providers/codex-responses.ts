/**
 * The `codex_responses` StreamFn: the OpenAI Responses API (and the ChatGPT
 * Codex backend that speaks it) through the openai SDK. Output items are
 * tracked by output_index; the final assistant message is built from the
 * completed response (or from the streamed items when a backend sends an
 * empty `output`), so reasoning items with encrypted content can be replayed.
 */
import type OpenAI from "openai";
import type { ModelRequest, ProviderEvent, StreamFn, Usage } from "../types.js";
import { ZERO_USAGE } from "../types.js";
import { openaiClient } from "./chat-completions.js";
import { asRecord } from "./convert-chat.js";
import { fromResponsesOutput, responsesRequestBody, responsesUsage } from "./convert-responses.js";
import { generatedCallId, InBandError, type ProviderConnection, runWire, truncated, type WireSession } from "./stream-runner.js";

type Event = OpenAI.Responses.ResponseStreamEvent;
type Item = Record<string, unknown>;

export function codexResponsesStream(conn: ProviderConnection): StreamFn {
  return (request, signal) => runWire(conn, request, signal, responsesSession(conn, request));
}

interface ResponsesState {
  /** Streamed items by output_index. */
  readonly items: Map<number, Item>;
  /** output_index → our tool-call index. */
  readonly toolIndex: Map<number, number>;
  toolCount: number;
  completed: boolean;
  status: string | undefined;
  incompleteReason: string | undefined;
  finalOutput: unknown[];
  usage: Usage;
}

function responsesSession(conn: ProviderConnection, request: ModelRequest): WireSession<Event> {
  const s: ResponsesState = {
    items: new Map(),
    toolIndex: new Map(),
    toolCount: 0,
    completed: false,
    status: undefined,
    incompleteReason: undefined,
    finalOutput: [],
    usage: ZERO_USAGE,
  };
  return {
    open: async (signal, fetch) => {
      const client = openaiClient(conn, fetch);
      const body = responsesRequestBody(request, { provider: conn.provider, baseUrl: conn.baseUrl, ...(conn.extraBody ? { extraBody: conn.extraBody } : {}) });
      return client.responses.create(body, { signal });
    },
    onChunk: (event) => onEvent(s, event),
    finish: () => finish(s, conn.provider),
  };
}

function onEvent(s: ResponsesState, e: Event): readonly ProviderEvent[] {
  switch (e.type) {
    case "response.output_item.added":
      return onItemAdded(s, e.output_index, asRecord(e.item));
    case "response.output_text.delta":
      return e.delta ? [{ type: "text_delta", delta: e.delta }] : [];
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      return e.delta ? [{ type: "reasoning_delta", delta: e.delta }] : [];
    case "response.function_call_arguments.delta":
      return onArgumentsDelta(s, e.output_index, e.delta);
    case "response.output_item.done":
      s.items.set(e.output_index, asRecord(e.item));
      return [];
    case "response.completed":
    case "response.incomplete":
      onCompleted(s, asRecord(e.response));
      return [];
    case "response.failed": {
      const error = asRecord(asRecord(e.response).error);
      throw new InBandError(String(error.message ?? "response failed"), { error });
    }
    case "error":
      throw new InBandError(String(e.message ?? "stream error"), { error: { code: e.code, message: e.message, param: e.param } });
    default:
      return [];
  }
}

function onItemAdded(s: ResponsesState, outputIndex: number, item: Item): ProviderEvent[] {
  s.items.set(outputIndex, { ...item });
  if (item.type !== "function_call") return [];
  const index = s.toolCount++;
  s.toolIndex.set(outputIndex, index);
  const id = String(item.call_id ?? item.id ?? "") || generatedCallId();
  s.items.set(outputIndex, { ...item, call_id: id });
  const events: ProviderEvent[] = [{ type: "toolcall_start", index, id, name: String(item.name ?? "") }];
  if (typeof item.arguments === "string" && item.arguments) events.push({ type: "toolcall_delta", index, delta: item.arguments });
  return events;
}

function onArgumentsDelta(s: ResponsesState, outputIndex: number, delta: string): ProviderEvent[] {
  const index = s.toolIndex.get(outputIndex);
  const item = s.items.get(outputIndex);
  if (index === undefined || !item || !delta) return [];
  item.arguments = String(item.arguments ?? "") + delta;
  return [{ type: "toolcall_delta", index, delta }];
}

function onCompleted(s: ResponsesState, response: Item): void {
  s.completed = true;
  s.status = typeof response.status === "string" ? response.status : undefined;
  const reason = asRecord(response.incomplete_details).reason;
  s.incompleteReason = typeof reason === "string" ? reason : undefined;
  s.finalOutput = Array.isArray(response.output) ? response.output : [];
  s.usage = responsesUsage(response.usage);
}

function finish(s: ResponsesState, provider: string) {
  if (!s.completed) throw truncated();
  const streamed = [...s.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  const output = s.finalOutput.length > 0 ? s.finalOutput : streamed;
  return { message: fromResponsesOutput(output, provider, s.status, s.incompleteReason), usage: s.usage };
}
