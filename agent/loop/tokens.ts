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

export function estimateSchemaTokens(schemas: readonly ToolSchema[]): number {
  return schemas.length === 0 ? 0 : estimateTextTokens(JSON.stringify(schemas));
}
