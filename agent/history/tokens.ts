/**
 * Rough token estimates (≈4 characters per token) for deciding when to
 * compress. Deliberately cheap: it runs before every model call, and the
 * provider's real usage numbers arrive only after the call.
 */
import type { Message, ToolSchema } from "../types.js";

const CHARS_PER_TOKEN = 4;
/** What an attached image costs, roughly, on the major providers. */
const IMAGE_TOKENS = 1_000;
const PER_MESSAGE_OVERHEAD = 4;

export function estimateMessageTokens(m: Message): number {
  let chars = 0;
  let extra = PER_MESSAGE_OVERHEAD;
  if (typeof m.content === "string") chars += m.content.length;
  else if (Array.isArray(m.content)) {
    for (const part of m.content) {
      if (part.type === "text") chars += part.text.length;
      else extra += IMAGE_TOKENS;
    }
  }
  if (m.role === "assistant" && m.tool_calls) {
    for (const c of m.tool_calls) chars += c.function.name.length + c.function.arguments.length + c.id.length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + extra;
}

export function estimateTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Estimates per schema array. Serialising ~50 MCP schemas on every model call
 * is a measurable main-thread cost, while the array is rebuilt only when the
 * registry's generation changes (ToolView.schemas is frozen), so identity is
 * a sound key. A pure memo: entries die with their array and callers cannot
 * observe it, which is why it may live at module level.
 */
const schemaTokenMemo = new WeakMap<readonly ToolSchema[], number>();

/** Treats `schemas` as immutable: an array mutated after its first estimate keeps its old figure. */
export function estimateSchemaTokens(schemas: readonly ToolSchema[]): number {
  if (schemas.length === 0) return 0;
  let tokens = schemaTokenMemo.get(schemas);
  if (tokens === undefined) {
    tokens = estimateTextTokens(JSON.stringify(schemas));
    schemaTokenMemo.set(schemas, tokens);
  }
  return tokens;
}
