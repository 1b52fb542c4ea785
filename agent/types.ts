/**
 * The provider-neutral vocabulary every layer shares: messages in Hermes
 * Agent's OpenAI-style format, the events a provider stream emits, tool definitions,
 * and the interfaces through which tools reach the outside world.
 * This file imports nothing internal but config types.
 */
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { ApiMode } from "../config/schema.js";
import type { Clock } from "../config/timing/index.js";

// ---------------------------------------------------------------- messages

export interface ToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string /** Always valid JSON once in history. */; readonly arguments: string };
}

/** A content part for multimodal user messages (vision). */
export type ContentPart = { readonly type: "text"; readonly text: string } | { readonly type: "image_url"; readonly image_url: { readonly url: string } };

export interface SystemMessage {
  readonly role: "system";
  readonly content: string;
}
export interface UserMessage {
  readonly role: "user";
  readonly content: string | readonly ContentPart[];
}
export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
  /** Chain-of-thought: persisted and displayed, never sent back to a provider. */
  readonly reasoning?: string;
  /** Provider-specific opaque items needed to continue a conversation (Anthropic thinking signatures, Codex items). */
  readonly reasoning_details?: unknown;
  readonly codex_reasoning_items?: unknown;
  readonly finish_reason?: FinishReason;
}
export interface ToolMessage {
  readonly role: "tool";
  readonly tool_call_id: string;
  readonly tool_name?: string;
  readonly content: string;
}
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
export type Role = Message["role"];
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

/**
 * Token counts for one model call. `input_tokens` excludes cached tokens, so the
 * prompt size is `input_tokens + cache_read_tokens + cache_write_tokens`
 * (providers that report an inclusive prompt count are normalised to this).
 */
export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_tokens: number;
  readonly cache_write_tokens: number;
  readonly reasoning_tokens: number;
}
export const ZERO_USAGE: Usage = Object.freeze({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 });

// ---------------------------------------------------------------- errors

/** The closed set of failure reasons, as Hermes Agent's error classifier names them. */
export const FAILOVER_REASONS = [
  "auth",
  "auth_permanent",
  "billing",
  "rate_limit",
  "upstream_rate_limit",
  "overloaded",
  "server_error",
  "timeout",
  "ssl_cert_verification",
  "context_overflow",
  "payload_too_large",
  "long_context_tier",
  "image_too_large",
  "model_not_found",
  "provider_policy_blocked",
  "content_policy_blocked",
  "format_error",
  "invalid_encrypted_content",
  "multimodal_tool_content_unsupported",
  "thinking_signature",
  "oauth_long_context_beta_forbidden",
  "llama_cpp_grammar_pattern",
  "reasoning_mandatory",
  "aborted",
  "unknown",
] as const;
export type FailoverReason = (typeof FAILOVER_REASONS)[number];

/**
 * A change to the request that lets the same target accept it, tried once
 * before any retry: the provider rejected one feature of the request, not the request.
 */
export type RequestRepair =
  /** Drop replayed reasoning (thinking signatures, encrypted reasoning items). */
  | "strip_reasoning"
  /** Replace image parts with a text note. */
  | "strip_images"
  /** Remove `pattern` and `format` from tool schemas (llama.cpp's grammar converter rejects them). */
  | "strip_schema_patterns"
  /** Send without Anthropic's 1M-context beta header. */
  | "drop_long_context_beta"
  /** Stop asking for reasoning to be switched off. */
  | "enable_reasoning";

/** A classified provider failure. Produced once, by the classifier; read by the retry/failover wrapper. */
export interface ClassifiedError {
  readonly reason: FailoverReason;
  readonly message: string;
  readonly status?: number;
  readonly retryable: boolean;
  readonly shouldCompress: boolean;
  readonly shouldRotateCredential: boolean;
  readonly shouldFallback: boolean;
  /** Seconds the provider asked us to wait, when it said. */
  readonly retryAfterS?: number;
  /** Retry once with this change to the request. */
  readonly repair?: RequestRepair;
  /** Nothing automatic can help: the person running the gateway must change something (the message says what). */
  readonly userAction?: boolean;
}

// ---------------------------------------------------------------- provider stream

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

// ---------------------------------------------------------------- tools

/** Interfaces through which tools reach the outside; the gateway and the chat CLI implement them. */
export interface ApprovalRequest {
  readonly command: string;
  /** Danger category key (the pattern description), used for session approvals. */
  readonly category: string;
  readonly description: string;
  /** Whether "always" may be offered. */
  readonly allowPermanent: boolean;
}
export type ApprovalChoice = "once" | "session" | "always" | "deny" | "timeout";
export interface ApprovalDecision {
  readonly choice: ApprovalChoice;
  /** Who decided (platform user id or "cli"), absent for timeout. */
  readonly decidedBy?: string;
  readonly reason?: string;
}
export interface Approver {
  /** Resolves when a person decides, on timeout, or with `deny` when the signal aborts. Null when no channel exists. */
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> | null;
}

export interface ClarifyRequest {
  readonly question: string;
  readonly choices: readonly string[];
  readonly allowFreeText: boolean;
}
export type ClarifyAnswer =
  | { readonly kind: "answer"; readonly text: string; readonly by?: string }
  | { readonly kind: "timeout" }
  | { readonly kind: "unavailable" };
export interface Clarifier {
  ask(req: ClarifyRequest, signal: AbortSignal): Promise<ClarifyAnswer>;
}

export interface SessionSearchQuery {
  readonly query: string;
  readonly role?: Role;
  readonly platform?: string;
  /** Epoch ms, inclusive. */
  readonly since?: number;
  /** Epoch ms, inclusive. */
  readonly until?: number;
  readonly limit?: number;
  readonly offset?: number;
}
export interface SessionSearchHit {
  readonly sessionId: string;
  readonly messageId: number;
  readonly role: Role;
  readonly platform: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly snippet: string;
  readonly title: string | null;
}
export interface SessionSearcher {
  search(q: SessionSearchQuery): readonly SessionSearchHit[];
}

/** The tool context's clock is the timing toolkit's: one Clock for every layer. */
export type { Clock };

/** Everything a tool may use. Built per turn by the gateway or the chat CLI. */
export interface ToolContext {
  readonly taskId: string;
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly platform: string;
  readonly userId: string | null;
  /** Working directory that relative paths resolve against. */
  readonly cwd: string;
  readonly home: string;
  readonly approver: Approver;
  readonly clarifier: Clarifier;
  readonly sessions: SessionSearcher;
  readonly clock: Clock;
  /** Per-session mutable state owned by tools (todo list, approvals granted for the session, …). */
  readonly state: SessionToolState;
  /** Notify the session (e.g. background process finished). Best effort. */
  notify(text: string): void;
  /** Messages to other chats (send_message); absent where nothing delivers them (the chat CLI). */
  readonly messenger?: Messenger;
  /** Scheduled jobs (cronjob); absent where no scheduler runs them. */
  readonly cron?: CronControl;
  /** The agent run this call belongs to; absent when a tool runs outside an agent loop. */
  readonly agent?: AgentRun | undefined;
}

// ---------------------------------------------------------------- delivery and scheduling

/** A place a message may go, as the model names it. */
export interface DeliveryTargetInfo {
  /** What to pass as a target: "origin", a platform ("telegram": its home channel) or "platform:chat_id[:thread_id]". */
  readonly target: string;
  readonly description: string;
}

export type MessageResult =
  | { readonly ok: true; readonly target: string; readonly messageIds: readonly string[] }
  | { readonly ok: false; readonly error: string };

/** Sends to the chats the configuration allows, through the gateway's egress. Bound to the turn's chat ("origin"). */
export interface Messenger {
  targets(): readonly DeliveryTargetInfo[];
  /** Never rejects: a refusal or a failed send is a result with `error`. */
  send(target: string, text: string, signal: AbortSignal): Promise<MessageResult>;
}

/** What a job is made of; `schedule` is a cron expression, "every 30m", a delay ("45m") or a time. */
export interface CronJobInput {
  readonly name?: string;
  readonly prompt?: string;
  readonly schedule?: string;
  /** IANA time zone for cron expressions and times without an offset; null = the gateway's. */
  readonly timezone?: string | null;
  /** "origin", "local" (kept, not sent), a platform (its home channel) or "platform:chat_id[:thread_id]". */
  readonly deliver?: string;
  /** Model for the job's runs; null = the configured one. */
  readonly model?: string | null;
  /** Longest a run may take; null = cron.run_timeout_s. */
  readonly timeoutS?: number | null;
}

export interface CronRunView {
  readonly status: string;
  readonly startedAt: string;
  readonly durationS: number | null;
  readonly delivery: string | null;
  readonly error: string | null;
}

export interface CronJobView {
  readonly id: string;
  readonly name: string;
  readonly prompt: string;
  readonly schedule: string;
  readonly timezone: string | null;
  readonly deliver: string;
  readonly model: string | null;
  readonly timeoutS: number | null;
  readonly paused: boolean;
  /** ISO time of the next run; null when none is due (a one-shot job that ran, or a paused job). */
  readonly nextRun: string | null;
  readonly lastRun: CronRunView | null;
}

/**
 * Scheduled jobs, for the cronjob tool. Bound to the turn's chat (a new job delivers there by default).
 * Methods throw a HermesError (HGW_ERR_CRON_*) saying what was wrong.
 */
export interface CronControl {
  list(): readonly CronJobView[];
  create(input: CronJobInput): CronJobView;
  update(id: string, input: CronJobInput): CronJobView;
  pause(id: string): CronJobView;
  resume(id: string): CronJobView;
  remove(id: string): void;
  /** Queues a run now (it does not wait for it); a run already in flight is not doubled. */
  runNow(id: string): CronJobView;
}

export interface SessionToolState {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T): void;
}

/**
 * A tool's parameters as its author writes them: one JSON Schema object
 * literal, declared `as const`. It is what the model is shown, what every call
 * is validated against (once, by the registry, defaults filled in), and —
 * through `ArgsOf` — the type of the arguments `execute` receives.
 */
export type ArgsSchema = Exclude<JSONSchema, boolean> & { readonly type: "object" };

/** The arguments a tool receives for `S`: properties with a `default` are always present. */
export type ArgsOf<S extends ArgsSchema> = FromSchema<S>;

export interface ToolDefinition<A = Record<string, unknown>> {
  readonly name: string;
  readonly toolset: string;
  /** `parameters` is the only description of the arguments: `A` is derived from it (`ArgsOf`), never re-checked by the tool. */
  readonly schema: ToolSchema;
  /** Safe to run beside other parallel-safe tools when their paths don't overlap. */
  readonly parallelSafe?: boolean;
  /** Interactive tools (clarify) force the whole batch to run sequentially. */
  readonly interactive?: boolean;
  /** No side effects: identical repeated results mean no progress (loop guardrails). Defaults to `parallelSafe`. */
  readonly readOnly?: boolean;
  /** Paths this call touches, for overlap checks (resolved against ctx.cwd). Gets validated arguments, as `execute` does. */
  paths?(args: A, ctx: ToolContext): readonly string[];
  /** Cached for 30 s by the registry. */
  available?(): boolean | Promise<boolean>;
  readonly maxResultChars?: number;
  /**
   * A batch made only of calls to such tools gives its iteration back to the
   * budget: programmatic tool calling (execute_code) does not eat turns.
   */
  readonly refundsIteration?: boolean;
  /**
   * Runs one call whose arguments already passed `schema.parameters` (with its
   * defaults filled in). Returns a JSON string (errors included). Must honour `signal`.
   */
  execute(args: A, ctx: ToolContext, signal: AbortSignal): Promise<string>;
}

// ---------------------------------------------------------------- agent runs (delegation, programmatic tool calls)

/** The iteration budget as tools see it; the loop's IterationBudget implements it. */
export interface SharedBudget {
  readonly max: number;
  readonly used: number;
  readonly remaining: number;
  consume(): boolean;
  refund(): void;
  /** A budget capped at `max` whose every iteration also spends from this one. */
  child(max: number): SharedBudget;
}

/** The tools one run offers its model (the loop's ToolView satisfies it). */
export interface RunTools {
  readonly schemas: readonly ToolSchema[];
  // biome-ignore lint/suspicious/noExplicitAny: each tool has its own argument type
  get(name: string): ToolDefinition<any> | undefined;
  /** A valid call comes back with the arguments to run the tool with (a copy, defaults filled in). */
  validateArgs(
    name: string,
    args: Readonly<Record<string, unknown>>,
  ): { readonly ok: true; readonly args: Record<string, unknown> } | { readonly ok: false; readonly message: string };
}

/** One line of a subagent's progress, relayed into the progress stream of the run that spawned it. */
export interface SubagentProgress {
  /** Which child: "1", "2", …; child 1 of child 2 is "2.1". */
  readonly label: string;
  readonly kind: "started" | "tool" | "finished" | "activity";
  readonly toolName?: string;
  readonly preview?: string;
}

/**
 * The agent run a tool call belongs to, attached to the ToolContext by
 * whoever runs the loop (the gateway's turn runner, the chat CLI, the
 * subagent runner): what delegate_task and execute_code need of their caller.
 */
export interface AgentRun {
  readonly budget: SharedBudget;
  /** 0 for the agent a person talks to, 1 for its subagents, and so on. */
  readonly depth: number;
  /** The model this run talks to. */
  readonly model: string;
  /** The toolsets this run was given. */
  readonly toolsets: readonly string[];
  readonly tools: RunTools;
  /** Shows a subagent's progress in this run's progress stream. Must not throw. */
  progress(p: SubagentProgress): void;
}

export interface SubagentRequest {
  readonly label: string;
  /** The child's system prompt (stored frozen with its session). */
  readonly system: string;
  /** The child's one user message. */
  readonly task: string;
  /** Toolsets to build the child's tools from. */
  readonly toolsets: readonly string[];
  /** Of those tools, only these (the parent's own tools minus what children may never have). */
  readonly allowedTools: readonly string[];
  readonly budget: SharedBudget;
  readonly depth: number;
  /** Must not throw. */
  progress(p: SubagentProgress): void;
}

export interface SubagentResult {
  readonly status: "completed" | "failed" | "interrupted" | "budget_exhausted";
  /** The child's final answer (its summary for the parent); "" when it produced none. */
  readonly summary: string;
  /** Where its conversation is stored, linked to the parent's session; null when it could not be stored. */
  readonly sessionId: string | null;
  readonly apiCalls: number;
  readonly toolCalls: number;
  readonly error?: string;
}

/** Runs subagents through the same agent loop and model stream as their parent; the gateway implements it. */
export interface SubagentRunner {
  /** Runs one child to its end. Never rejects; resolves promptly once `signal` aborts. */
  run(req: SubagentRequest, parent: ToolContext, signal: AbortSignal): Promise<SubagentResult>;
}
