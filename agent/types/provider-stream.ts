/**
 * The LLM call as the agent loop sees it: a model request, the typed events
 * its stream emits (always ending in exactly one `done` or `error`), and the
 * target a request is sent to.
 */
import type { ApiMode } from "../../config/schema.js";
import type { ClassifiedError } from "./failures.js";
import type { AssistantMessage, Message, Usage } from "./messages.js";

export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  /** JSON Schema for the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelRequest {
  /**
   * The model the caller asks for: config.model.model, or a session's `/model`
   * choice. The resilience wrapper sends it to the primary target only;
   * fallback and auxiliary targets send their own configured model.
   */
  readonly model: string;
  readonly system: string;
  /** History without the system message. */
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly reasoningEffort?: "none" | "low" | "medium" | "high";
  /** Leave Anthropic's 1M-context beta out of the `anthropic-beta` header (the subscription rejected it). */
  readonly withoutLongContextBeta?: boolean;
}

/** What a provider stream emits. It always ends in exactly one `done` or `error`. */
export type ProviderEvent =
  | { readonly type: "start" }
  | { readonly type: "text_delta"; readonly delta: string }
  | { readonly type: "reasoning_delta"; readonly delta: string }
  | { readonly type: "toolcall_start"; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: "toolcall_delta"; readonly index: number; readonly delta: string }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "done"; readonly message: AssistantMessage; readonly usage: Usage }
  | { readonly type: "error"; readonly error: ClassifiedError };

/**
 * The injected LLM call. Must not throw once invoked: every failure, including
 * an abort, arrives as a terminal `error` event.
 */
export type StreamFn = (request: ModelRequest, signal: AbortSignal) => AsyncIterable<ProviderEvent>;

export interface ModelTarget {
  readonly provider: string;
  readonly model: string;
  readonly apiMode: ApiMode;
  readonly baseUrl: string;
  readonly contextLength: number;
}
