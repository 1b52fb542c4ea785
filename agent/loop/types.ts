/**
 * The agent loop's contract: what goes in, the lifecycle events it emits
 * while running, and what comes out. The loop persists nothing; callers
 * persist each `message` event as it happens (or `result.messages` at the end).
 */
import type { Logger } from "pino";
import type { CompressFn } from "../compression/compressor.js";
import type { ToolView } from "../tools/tool-view.js";
import type { ClassifiedError, Message, SharedBudget, ToolContext, Usage, UserMessage } from "../types.js";
import type { GuardrailDecision, GuardrailSettings } from "./guardrails.js";
import type { SteerQueue } from "./steer.js";

export interface AgentLoopInput {
  /** The frozen session system prompt (what sessions.system_prompt stores). */
  readonly system: string;
  /** Appended to the system prompt at call time only; never in history or trajectories. */
  readonly ephemeralPrompt?: string | undefined;
  /** Prior conversation, without the system message. Repaired if it breaks role alternation. */
  readonly history: readonly Message[];
  /** The new user message; omit to continue from the history as it stands. */
  readonly userMessage?: UserMessage | string | null | undefined;
  readonly tools: ToolView;
  readonly context: ToolContext;
}

/** Vetoes a call before it runs (plugins, policy); a string is the reason the model reads. */
export type ToolVeto = (name: string, args: Readonly<Record<string, unknown>>, ctx: ToolContext) => string | null | Promise<string | null>;

export interface AgentLoopOptions {
  readonly model: string;
  readonly maxTokens?: number | undefined;
  readonly temperature?: number | undefined;
  readonly reasoningEffort?: "none" | "low" | "medium" | "high" | undefined;
  /** Shared with child agents: a child consumes from its parent's budget (an IterationBudget or one of its children). */
  readonly budget: SharedBudget;
  /** Append the 70% / 90% notes to tool results (config.agent.budget_warnings). */
  readonly budgetWarnings: boolean;
  /** config.agent.max_parallel_tools, capped at 8. */
  readonly maxParallelTools: number;
  readonly guardrails: GuardrailSettings;
  readonly steer?: SteerQueue | undefined;
  readonly veto?: ToolVeto | undefined;
  readonly compress?: CompressFn | undefined;
  /** Compress before a call once estimated tokens reach the trigger for this window, share and maxTokens (compression/threshold.ts). */
  readonly contextLength?: number | undefined;
  readonly compressionThreshold?: number | undefined;
  readonly logger?: Logger | undefined;
}

export type LoopStatus = "thinking" | "executing_tools" | "compressing" | "summarizing" | "done";

export interface ToolEndInfo {
  readonly id: string;
  readonly name: string;
  readonly ok: boolean;
  readonly durationMs: number;
  /** First line(s) of the result, at most 200 characters. */
  readonly preview: string;
}

/** Every lifecycle event the loop emits. `emit` must not throw (a throwing listener is logged and ignored). */
export type LoopEvent =
  | { readonly type: "step_start"; readonly iteration: number; readonly apiCall: number }
  | { readonly type: "step_end"; readonly iteration: number; readonly toolCalls: readonly string[]; readonly finishReason: string | undefined }
  | { readonly type: "status"; readonly status: LoopStatus }
  | { readonly type: "text_delta"; readonly delta: string }
  | { readonly type: "reasoning_delta"; readonly delta: string }
  | { readonly type: "thinking_start" }
  | { readonly type: "thinking_stop" }
  | { readonly type: "tool_call_generated"; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: "tool_start"; readonly id: string; readonly name: string; readonly args: Readonly<Record<string, unknown>> }
  | ({ readonly type: "tool_end" } & ToolEndInfo)
  | { readonly type: "budget_warning"; readonly tier: "caution" | "warning" | "exhausted"; readonly used: number; readonly max: number }
  | { readonly type: "usage"; readonly apiCall: number; readonly usage: Usage }
  | {
      readonly type: "compression";
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly history: readonly Message[];
      readonly note?: string | undefined;
    }
  | { readonly type: "guardrail"; readonly decision: GuardrailDecision }
  | { readonly type: "steer_applied"; readonly toolCallId: string; readonly texts: readonly string[] }
  | { readonly type: "message"; readonly message: Message };

export type LoopEmit = (event: LoopEvent) => void;

export type StopReason =
  | { readonly kind: "completed" }
  | { readonly kind: "interrupted" }
  | { readonly kind: "budget_exhausted" }
  | { readonly kind: "error"; readonly error: ClassifiedError }
  | { readonly kind: "guardrail"; readonly decision: GuardrailDecision };

export interface AgentLoopResult {
  /** The answer that ended the turn: the final, tool-free assistant text ("" when the turn ended otherwise). */
  readonly finalText: string;
  /** Messages appended this turn, in order (the user message first when one was given). */
  readonly messages: readonly Message[];
  /** The whole history after the turn (compressed, if compression ran). */
  readonly history: readonly Message[];
  readonly usage: Usage;
  readonly apiCalls: number;
  /** Budget iterations this run consumed. */
  readonly iterations: number;
  readonly stop: StopReason;
  readonly compressed: boolean;
  /** Steering notes that never reached a tool result; the caller may make them the next turn. */
  readonly pendingSteer: readonly string[];
}
