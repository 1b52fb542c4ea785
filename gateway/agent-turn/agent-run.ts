/**
 * The AgentRun a turn's tools see (ToolContext.agent), and how a subagent's
 * progress reads in the turn's progress stream: a child's tool call is shown
 * like a tool call of the turn, prefixed with the child's label
 * ("[2] web_search"), and everything else a child does counts as activity (it
 * keeps the gateway's inactivity watchdog quiet).
 */
import type { AgentRun, RunTools, SharedBudget, SubagentProgress } from "../../agent/types.js";
import type { TurnEvent } from "../runtime/ports.js";

export interface TopRun {
  readonly budget: SharedBudget;
  readonly model: string;
  readonly toolsets: readonly string[];
  readonly tools: RunTools;
  progress(p: SubagentProgress): void;
}

/** The run of the agent a person talks to (depth 0). */
export function topLevelRun(r: TopRun): AgentRun {
  return { budget: r.budget, depth: 0, model: r.model, toolsets: r.toolsets, tools: r.tools, progress: (p) => r.progress(p) };
}

/** What a child's step shows: its tool calls, and its start with the task. */
function shown(p: SubagentProgress): { name: string; preview: string } | null {
  if (p.kind === "tool") return { name: `[${p.label}] ${p.toolName ?? "tool"}`, preview: p.preview ?? "" };
  if (p.kind === "started") return { name: `[${p.label}] subagent`, preview: p.preview ?? "" };
  return null;
}

export function subagentTurnEvent(p: SubagentProgress): TurnEvent {
  const s = shown(p);
  return s ? { type: "tool_start", toolName: s.name, preview: s.preview } : { type: "activity" };
}
