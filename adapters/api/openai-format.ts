/**
 * OpenAI Chat Completions wire shapes the API adapter answers with: a full
 * completion, stream chunks, and error bodies the openai SDK understands.
 */
export interface CompletionIds {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

const EMPTY_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function completion(ids: CompletionIds, text: string) {
  return {
    id: ids.id,
    object: "chat.completion",
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null }],
    usage: EMPTY_USAGE,
  };
}

export function chunk(ids: CompletionIds, delta: Record<string, unknown>, finishReason: "stop" | null = null) {
  return {
    id: ids.id,
    object: "chat.completion.chunk",
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

export const sseData = (payload: unknown) => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;

export function apiError(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

/** The text of the last user message: a string, or the text parts of a content array. */
export function lastUserText(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content
        .flatMap((p: unknown) => {
          const part = p as { type?: unknown; text?: unknown } | null;
          return part?.type === "text" && typeof part.text === "string" ? [part.text] : [];
        })
        .join("\n");
    }
    return null;
  }
  return null;
}
