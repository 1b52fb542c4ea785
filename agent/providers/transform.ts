/**
 * Provider-neutral history repairs applied before any wire conversion, so every
 * API receives a history it accepts: every tool call answered exactly once,
 * right after the assistant turn that made it, and no orphan results.
 * (An interrupted turn leaves calls without results; compression can leave
 * results without calls; every provider rejects both.)
 */
import type { AssistantMessage, ContentPart, Message, ToolMessage, UserMessage } from "../types.js";

export const MISSING_RESULT = "No result was recorded for this tool call (the turn was interrupted).";

export function repairToolPairs(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let open: AssistantMessage | undefined; // the assistant turn whose results we are collecting
  let answered = new Set<string>();
  const closeOpen = () => {
    if (!open) return;
    for (const call of open.tool_calls ?? []) {
      if (!answered.has(call.id)) out.push({ role: "tool", tool_call_id: call.id, tool_name: call.function.name, content: MISSING_RESULT });
    }
    open = undefined;
  };
  for (const m of messages) {
    if (m.role === "tool") {
      const known = open?.tool_calls?.some((c) => c.id === m.tool_call_id) ?? false;
      if (known && !answered.has(m.tool_call_id)) {
        answered.add(m.tool_call_id);
        out.push(m);
      } else if (!known) {
        out.push(orphanToUser(m));
      }
      continue;
    }
    closeOpen();
    out.push(m);
    if (m.role === "assistant" && m.tool_calls?.length) {
      open = m;
      answered = new Set();
    }
  }
  closeOpen();
  return out;
}

function orphanToUser(m: ToolMessage): UserMessage {
  const name = m.tool_name ? ` ${m.tool_name}` : "";
  return { role: "user", content: `[Result of an earlier tool call${name}]\n${m.content}` };
}

/** Tool arguments as an object; anything unparsable becomes `{}` (the loop repairs JSON before history). */
export function parseToolArguments(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Anthropic ids must match ^[a-zA-Z0-9_-]{1,64}$; other providers are laxer. Deterministic, so calls and results agree. */
export function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return clean || "tool_call";
}

export function contentText(content: string | readonly ContentPart[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((p): p is Extract<ContentPart, { type: "text" }> => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

export interface DataUrl {
  readonly mediaType: string;
  readonly data: string;
}

export function parseDataUrl(url: string): DataUrl | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m?.[1] && m[2] !== undefined ? { mediaType: m[1], data: m[2] } : undefined;
}

/** Rough token estimate (4 chars per token) for budgets and the rule that a server disconnect on a large session is a context overflow. */
export function approxTokens(system: string, messages: readonly Message[]): number {
  let chars = system.length;
  for (const m of messages) {
    if (m.role === "assistant") {
      chars += (m.content ?? "").length;
      for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
    } else {
      chars += typeof m.content === "string" ? m.content.length : contentText(m.content).length + 1000 * m.content.filter((p) => p.type === "image_url").length;
    }
  }
  return Math.ceil(chars / 4);
}

/**
 * Base64 image data one request may carry (characters of data: URLs). Anthropic
 * refuses requests over 32 MB and OpenAI over 50 MB; a session held in memory
 * keeps every image it was sent, so the oldest have to give way.
 */
export const REQUEST_IMAGE_BUDGET_CHARS = 20 * 1024 * 1024;

/**
 * Keeps the newest images within `budget` characters; older image parts become
 * the text "[image]" (what the store keeps of them too). Inputs are not mutated.
 */
export function capImages(messages: readonly Message[], budget = REQUEST_IMAGE_BUDGET_CHARS): readonly Message[] {
  let left = budget;
  let changed = false;
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i] as Message;
    if (m.role !== "user" || typeof m.content === "string") continue;
    const parts = [...m.content].reverse().map((p): ContentPart => {
      if (p.type !== "image_url") return p;
      left -= p.image_url.url.length;
      if (left >= 0) return p;
      changed = true;
      return { type: "text", text: "[image]" };
    });
    out[i] = { role: "user", content: parts.reverse() };
  }
  return changed ? out : messages;
}
