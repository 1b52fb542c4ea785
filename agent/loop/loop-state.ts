/**
 * The explicit state one run of the loop carries, and the small operations on
 * it that every phase shares: appending a message, counting usage, stopping.
 */
import type { Logger } from "pino";
import { COMPRESSION_SYSTEM_NOTE } from "../compression/summary.js";
import { mergeSameRole, repairHistory } from "../history/alternation.js";
import { estimateMessageTokens, estimateSchemaTokens, estimateTextTokens, estimateTokens } from "../history/tokens.js";
import type { Message, ModelRequest, StreamFn, ToolSchema, Usage, UserMessage } from "../types.js";
import { GuardrailController } from "./guardrails.js";
import type { AgentLoopInput, AgentLoopOptions, AgentLoopResult, LoopEmit, StopReason } from "./types.js";

export interface LoopEnv {
  readonly input: AgentLoopInput;
  readonly options: AgentLoopOptions;
  readonly emit: LoopEmit;
  readonly signal: AbortSignal;
  readonly stream: StreamFn;
  readonly logger: Logger | undefined;
}

export interface LoopState {
  /** What the provider sees: repaired, possibly compressed. */
  history: Message[];
  /** What this run added, exactly as emitted (for persistence). */
  readonly appended: Message[];
  usage: Usage;
  apiCalls: number;
  iterations: number;
  finalText: string;
  compressed: boolean;
  /** Running estimate of the prompt size (system + tools + history). */
  tokens: number;
  /** Tokens of system prompt and tool schemas, constant for the run. */
  readonly fixedTokens: number;
  readonly guard: GuardrailController;
  /** The exhaustion notice already reached the model inside a tool result. */
  exhaustedNoticeGiven: boolean;
  stop: StopReason | undefined;
}

export function initState(env: LoopEnv): LoopState {
  const { input, options } = env;
  const repaired = repairHistory(input.history);
  if (repaired.changes.length > 0) env.logger?.warn({ changes: repaired.changes }, "repaired history that broke role alternation");
  const fixedTokens = estimateTextTokens(input.system) + estimateTextTokens(input.ephemeralPrompt ?? "") + estimateSchemaTokens(input.tools.schemas);
  return {
    history: [...repaired.history],
    appended: [],
    usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
    apiCalls: 0,
    iterations: 0,
    finalText: "",
    compressed: false,
    tokens: fixedTokens + estimateTokens(repaired.history),
    fixedTokens,
    guard: new GuardrailController(options.guardrails, input.context.platform),
    exhaustedNoticeGiven: false,
    stop: undefined,
  };
}

/**
 * Records a new message: emitted and kept as-is for persistence; in the
 * provider-facing history a same-role neighbour is merged instead, so the
 * stored transcript stays append-only while the request stays valid.
 */
export function appendMessage(state: LoopState, env: LoopEnv, message: Message): void {
  state.appended.push(message);
  env.emit({ type: "message", message });
  const last = state.history.at(-1);
  if (last && last.role === message.role && (message.role === "user" || message.role === "assistant")) {
    state.tokens -= estimateMessageTokens(last);
    state.history[state.history.length - 1] = mergeSameRole(last as UserMessage, message);
    state.tokens += estimateMessageTokens(state.history[state.history.length - 1]!);
    return;
  }
  state.history.push(message);
  state.tokens += estimateMessageTokens(message);
}

export function replaceHistory(state: LoopState, history: readonly Message[]): void {
  state.history = [...repairHistory(history).history];
  state.tokens = state.fixedTokens + estimateTokens(state.history);
}

export function addUsage(state: LoopState, u: Usage): void {
  const t = state.usage;
  state.usage = {
    input_tokens: t.input_tokens + u.input_tokens,
    output_tokens: t.output_tokens + u.output_tokens,
    cache_read_tokens: t.cache_read_tokens + u.cache_read_tokens,
    cache_write_tokens: t.cache_write_tokens + u.cache_write_tokens,
    reasoning_tokens: t.reasoning_tokens + u.reasoning_tokens,
  };
}

export function buildRequest(state: LoopState, env: LoopEnv, tools: readonly ToolSchema[], extraSystem?: string): ModelRequest {
  const { input, options } = env;
  // After a compression the rest of the turn already reads the note the continuing session's prompt gets.
  const note = state.compressed && !input.system.includes(COMPRESSION_SYSTEM_NOTE) ? COMPRESSION_SYSTEM_NOTE : undefined;
  const system = [input.system, note, input.ephemeralPrompt, extraSystem].filter((s): s is string => Boolean(s)).join("\n\n");
  return {
    model: options.model,
    system,
    messages: [...state.history],
    tools,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.reasoningEffort !== undefined ? { reasoningEffort: options.reasoningEffort } : {}),
  };
}

export function toResult(state: LoopState, pendingSteer: readonly string[]): AgentLoopResult {
  return {
    finalText: state.finalText,
    messages: state.appended,
    history: state.history,
    usage: state.usage,
    apiCalls: state.apiCalls,
    iterations: state.iterations,
    stop: state.stop ?? { kind: "completed" },
    compressed: state.compressed,
    pendingSteer,
  };
}

/** Wraps the caller's listener so a throwing listener can never break the turn (it is logged). */
export function guardEmit(emit: LoopEmit, logger: Logger | undefined): LoopEmit {
  return (event) => {
    try {
      emit(event);
    } catch (err) {
      logger?.warn({ err, event: event.type }, "agent loop event listener threw");
    }
  };
}

export function userMessageOf(input: AgentLoopInput): UserMessage | null {
  const m = input.userMessage;
  if (m === null || m === undefined) return null;
  return typeof m === "string" ? { role: "user", content: m } : m;
}
