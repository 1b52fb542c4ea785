/**
 * Message ⇄ row mapping. Rows keep the columns of Hermes Agent's schema; messages are
 * the provider-neutral shape of agent/types.ts.
 */
import type { AssistantMessage, ContentPart, Message, ToolMessage } from "../../agent/types.js";

export interface MessageRow {
  id: number;
  session_id: string;
  role: string;
  content: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  timestamp: number;
  token_count: number | null;
  finish_reason: string | null;
  reasoning: string | null;
  reasoning_details: string | null;
  codex_reasoning_items: string | null;
}

/**
 * Multimodal user content is stored as its text; images become "[image]".
 * Image payloads (often base64 data URLs) do not belong in the search index,
 * and a replayed history does not need pixels from earlier turns.
 */
function contentText(content: string | null | readonly ContentPart[]): string | null {
  if (content === null || typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * The message's column values in the order of Messages' INSERT: role, content,
 * tool_call_id, tool_calls, tool_name, finish_reason, reasoning,
 * reasoning_details, codex_reasoning_items.
 */
export function messageValues(m: Message): Array<string | null> {
  const a = m.role === "assistant" ? m : null;
  const t = m.role === "tool" ? m : null;
  return [
    m.role,
    contentText(m.content),
    t?.tool_call_id ?? null,
    a?.tool_calls && a.tool_calls.length > 0 ? JSON.stringify(a.tool_calls) : null,
    t?.tool_name ?? null,
    a?.finish_reason ?? null,
    a?.reasoning ?? null,
    json(a?.reasoning_details),
    json(a?.codex_reasoning_items),
  ];
}

/** How many tool calls a message adds to the session's counter. */
export function toolCallsIn(m: Message): number {
  return m.role === "assistant" ? (m.tool_calls?.length ?? 0) : 0;
}

/** Parses stored JSON; a malformed value is reported through `onBad` and dropped. */
function parse(text: string | null, onBad: (err: unknown) => void): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    onBad(err);
    return undefined;
  }
}

function toAssistant(r: MessageRow, onBad: (err: unknown) => void): AssistantMessage {
  const calls = parse(r.tool_calls, onBad);
  const details = parse(r.reasoning_details, onBad);
  const codex = parse(r.codex_reasoning_items, onBad);
  return {
    role: "assistant",
    content: r.content,
    ...(Array.isArray(calls) && calls.length > 0 ? { tool_calls: calls as AssistantMessage["tool_calls"] } : {}),
    ...(r.reasoning !== null ? { reasoning: r.reasoning } : {}),
    ...(details !== undefined ? { reasoning_details: details } : {}),
    ...(codex !== undefined ? { codex_reasoning_items: codex } : {}),
    ...(r.finish_reason !== null ? { finish_reason: r.finish_reason as AssistantMessage["finish_reason"] } : {}),
  };
}

/** The stored row as a Message; null for roles the agent does not know. */
export function rowToMessage(r: MessageRow, onBad: (err: unknown) => void): Message | null {
  switch (r.role) {
    case "system":
      return { role: "system", content: r.content ?? "" };
    case "user":
      return { role: "user", content: r.content ?? "" };
    case "assistant":
      return toAssistant(r, onBad);
    case "tool": {
      const msg: ToolMessage = {
        role: "tool",
        tool_call_id: r.tool_call_id ?? "",
        content: r.content ?? "",
        ...(r.tool_name !== null ? { tool_name: r.tool_name } : {}),
      };
      return msg;
    }
    default:
      return null;
  }
}
