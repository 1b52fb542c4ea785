/**
 * A tool: its definition (schema, traits, `execute`), the context every call
 * receives, and the agent run a call belongs to (budget, tools, progress) —
 * what delegate_task and execute_code need of their caller. They name each
 * other, so they live together.
 */
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { Clock } from "../../config/timing/index.js";
import type { CronControl, Messenger } from "./delivery.js";
import type { ToolSchema } from "./provider-stream.js";
import type { Approver, Clarifier, SessionSearcher } from "./tool-ports.js";

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
