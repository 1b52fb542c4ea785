/**
 * One model call: consumes the injected stream, relays deltas as lifecycle
 * events, and returns the finished assistant message, a classified error, or
 * "aborted". Nothing partial ever leaves this function.
 */
import type { Logger } from "pino";
import { raceAbort } from "../../config/timing/index.js";
import type { AssistantMessage, ClassifiedError, ModelRequest, ProviderEvent, StreamFn, Usage } from "../types.js";
import type { LoopEmit } from "./types.js";

export type ModelOutcome =
  | { readonly kind: "message"; readonly message: AssistantMessage; readonly usage: Usage }
  | { readonly kind: "error"; readonly error: ClassifiedError }
  | { readonly kind: "aborted" };

interface StreamState {
  thinking: boolean;
}

export async function callModel(request: ModelRequest, stream: StreamFn, signal: AbortSignal, emit: LoopEmit, logger?: Logger): Promise<ModelOutcome> {
  const state: StreamState = { thinking: false };
  let iterator: AsyncIterator<ProviderEvent>;
  try {
    iterator = stream(request, signal)[Symbol.asyncIterator]();
  } catch (err) {
    return { kind: "error", error: contractError(`the provider stream threw when called: ${(err as Error).message}`) };
  }
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal, (err) => logger?.debug({ err }, "provider stream failed after the turn was interrupted"));
      if (next.done) return { kind: "error", error: contractError("the provider stream ended without a done or error event") };
      const outcome = handleEvent(next.value, state, emit);
      if (outcome) return outcome.kind === "error" && (signal.aborted || outcome.error.reason === "aborted") ? { kind: "aborted" } : outcome;
      if (signal.aborted) return { kind: "aborted" };
    }
  } catch (err) {
    if (signal.aborted) return { kind: "aborted" };
    return { kind: "error", error: contractError(`the provider stream threw: ${(err as Error).message}`) };
  } finally {
    stopThinking(state, emit);
    // Release the provider's resources (HTTP body, timers); its own failure must not mask our outcome.
    void Promise.resolve(iterator.return?.()).catch((err: unknown) => logger?.debug({ err }, "provider stream cleanup failed"));
  }
}

function handleEvent(event: ProviderEvent, state: StreamState, emit: LoopEmit): ModelOutcome | null {
  switch (event.type) {
    case "start":
    case "usage":
    case "toolcall_delta":
      return null;
    case "reasoning_delta":
      if (!state.thinking) {
        state.thinking = true;
        emit({ type: "thinking_start" });
      }
      emit({ type: "reasoning_delta", delta: event.delta });
      return null;
    case "text_delta":
      stopThinking(state, emit);
      emit({ type: "text_delta", delta: event.delta });
      return null;
    case "toolcall_start":
      stopThinking(state, emit);
      emit({ type: "tool_call_generated", index: event.index, id: event.id, name: event.name });
      return null;
    case "done":
      return { kind: "message", message: event.message, usage: event.usage };
    case "error":
      return { kind: "error", error: event.error };
  }
}

function stopThinking(state: StreamState, emit: LoopEmit): void {
  if (!state.thinking) return;
  state.thinking = false;
  emit({ type: "thinking_stop" });
}

/** A stream that broke its own contract: not retryable, nothing to compress or rotate. */
export function contractError(message: string): ClassifiedError {
  return { reason: "unknown", message, retryable: false, shouldCompress: false, shouldRotateCredential: false, shouldFallback: false };
}
