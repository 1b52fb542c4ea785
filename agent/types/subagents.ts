/**
 * Subagents: what a parent run asks for, what comes back, and the runner
 * that runs a child through the same agent loop and model stream as its
 * parent (the gateway implements it).
 */
import type { SharedBudget, SubagentProgress, ToolContext } from "./tool-definition.js";

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
