/**
 * The turn runner port: one agent turn as the runtime asks for it, the events
 * it reports while it runs, and what it ends with.
 */
import type { TurnProgress } from "../../../adapters/types.js";
import type { Message, ToolContext, Usage, UserMessage } from "../../../agent/types.js";

/** What the runner reports while a turn runs; every event also counts as activity. */
export type TurnEvent =
  | { readonly type: "tool_start"; readonly toolName: string; readonly preview: string }
  | { readonly type: "tool_end"; readonly toolName: string; readonly isError: boolean; readonly durationMs?: number; readonly preview?: string }
  /** Compression, budget and guardrail warnings, for adapters that show progress (Adapter.progress). */
  | { readonly type: "progress"; readonly progress: Exclude<TurnProgress, { readonly kind: "tool_start" | "tool_end" }> }
  | { readonly type: "text_delta"; readonly delta: string }
  /** Something the person should know now (e.g. a compression summary that could not be written). */
  | { readonly type: "notice"; readonly text: string }
  /** A message the turn appended (the user's, a model response, a tool result), as it happens; tool calls and results are journaled. */
  | { readonly type: "message"; readonly message: Message }
  /** A model request is about to go out: its prompt is built. */
  | { readonly type: "model_request" }
  /** The model wrote something other than answer text (reasoning, a tool call). */
  | { readonly type: "model_output" }
  | { readonly type: "activity" };

export interface TurnRequest {
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly platform: string;
  /** The model for this turn (session override or config.model.model). */
  readonly model: string;
  readonly systemPrompt: string;
  readonly history: readonly Message[];
  readonly input: UserMessage;
  /**
   * The tool calls and results this same turn had before a crash cut it off, from the turn journal; empty or
   * absent for a fresh turn. The runner continues from `input` and them instead of starting over (a call that
   * never got a result is closed with a result saying the gateway restarted); they follow `input` at the head
   * of the result's messages.
   */
  readonly resume?: readonly Message[] | undefined;
  readonly toolsets: readonly string[];
  readonly tools: ToolContext;
  /** Returns the next steering text queued for this turn, or null; the runner calls it at tool boundaries. */
  takeSteer(): string | null;
  /** Must not throw. */
  emit(event: TurnEvent): void;
}

export interface TurnResult {
  readonly status: "completed" | "aborted" | "failed";
  /** The final assistant text (completed turns). */
  readonly finalText: string | null;
  /** Messages to append to the history, the user input first, for every status. */
  readonly messages: readonly Message[];
  readonly usage: Usage;
  /** Model calls the turn made; absent = none. */
  readonly apiCalls?: number;
  /** A human-readable reason for failed turns. */
  readonly error?: string;
  /** How many of the texts taken with takeSteer never reached the model (the last ones); they become the next turn. */
  readonly unusedSteer?: number;
  /** Set when the history was compressed during the turn: the conversation continues in a child session. */
  readonly compaction?: TurnCompaction | undefined;
}

export interface TurnCompaction {
  /** The compressed history the child session starts from (the todo list re-injected). */
  readonly history: readonly Message[];
  /** The first `splitAt` of `messages` came before the (last) compression and stay in the old session; the rest go to the child. */
  readonly splitAt: number;
}

/** Runs one agent turn. Resolves (never rejects) once the turn ended, promptly after `signal` aborts. */
export interface TurnRunner {
  run(req: TurnRequest, signal: AbortSignal): Promise<TurnResult>;
}
