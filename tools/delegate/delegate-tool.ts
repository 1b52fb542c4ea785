/**
 * `delegate_task`: hands one or more sub-tasks to subagents. Each child gets
 * a fresh conversation with a focused prompt, the parent's tools minus those
 * children never get (delegate_task unless it is an orchestrator, clarify,
 * memory, send_message, execute_code), and an iteration budget that also
 * spends from the parent's. Children run at once (at most
 * delegation.max_concurrent_children), inside the parent's tool call: the
 * parent waits, an interrupt stops them all, and what comes back is each
 * child's summary. The runner (the gateway) stores each child's session
 * linked to the parent's and relays its progress.
 */
import type { ArgsOf, SubagentProgress, SubagentResult, SubagentRunner, ToolContext, ToolDefinition } from "../../agent/types.js";
import { ERRORS } from "../../config/errors.js";
import type { Config } from "../../config/schema.js";
import { defineTool } from "../common/define-tool.js";
import { childSystemPrompt } from "./child-prompt.js";

/** Tools a child never gets, as in Hermes Agent (delegate_task comes back for orchestrators). */
export const BLOCKED_FOR_CHILDREN: readonly string[] = ["delegate_task", "clarify", "memory", "send_message", "execute_code"];

const TASK = {
  type: "object",
  properties: {
    goal: { type: "string", minLength: 1, description: "What the subagent must achieve, stated completely: it sees nothing of this conversation." },
    context: { type: "string", description: "Facts, paths, constraints and findings it needs." },
    toolsets: {
      type: "array",
      items: { type: "string" },
      description: 'Toolsets to give it (e.g. ["web", "file"]); default: yours. It never gets more tools than you have.',
    },
  },
  required: ["goal"],
  additionalProperties: false,
} as const;

/** The parameters: one task inline (`goal`, …) or several (`tasks`, at most `max`). */
function parameters(max: number) {
  return {
    type: "object",
    properties: {
      ...TASK.properties,
      goal: { ...TASK.properties.goal, description: "One task (or use `tasks`)." },
      tasks: { type: "array", items: TASK, minItems: 1, maxItems: max, description: `Several independent tasks, run in parallel (at most ${max}).` },
      role: {
        type: "string",
        enum: ["leaf", "orchestrator"],
        description: "orchestrator: the children may delegate again (within the depth limit). Default leaf.",
      },
    },
    additionalProperties: false,
  } as const;
}
export type DelegateArgs = ArgsOf<ReturnType<typeof parameters>>;
export type DelegateTask = ArgsOf<typeof TASK>;

export interface DelegateToolOptions {
  readonly config: Config["delegation"];
  readonly runner: SubagentRunner;
}

const refuse = (why: string) => JSON.stringify({ success: false, error: `${ERRORS.HGW_ERR_DELEGATION_REFUSED} ${why}` });

export function createDelegateTool(o: DelegateToolOptions): ToolDefinition<DelegateArgs> {
  const max = o.config.max_concurrent_children;
  return defineTool({
    name: "delegate_task",
    toolset: "delegation",
    description:
      `Spawn up to ${max} subagents that work at the same time, each with its own fresh conversation, and wait for their summaries. ` +
      "Use it for context-heavy or parallel sub-tasks (research several topics, investigate separate parts of a codebase); only each summary " +
      "enters your context. Give either `goal` (one task) or `tasks` (several). Subagents cannot ask the user questions, write memory, " +
      `or run execute_code; delegation nests at most ${o.config.max_spawn_depth} level(s) deep.`,
    parameters: parameters(max),
    parallelSafe: false,
    async execute(args, ctx, signal) {
      const run = ctx.agent;
      if (!run) return refuse("It needs an agent run to delegate from.");
      const depth = run.depth + 1;
      if (depth > o.config.max_spawn_depth)
        return refuse(`The delegation depth limit (delegation.max_spawn_depth = ${o.config.max_spawn_depth}) is reached: do this work yourself.`);
      const tasks =
        args.tasks ??
        (args.goal ? [{ goal: args.goal, ...(args.context ? { context: args.context } : {}), ...(args.toolsets ? { toolsets: args.toolsets } : {}) }] : []);
      if (tasks.length === 0) return refuse("Give `goal` or a non-empty `tasks` list.");
      if (args.tasks && args.goal) return refuse("Give either `goal` or `tasks`, not both.");
      const orchestrator = args.role === "orchestrator" && depth < o.config.max_spawn_depth;
      const allowedTools = run.tools.schemas.map((s) => s.name).filter((n) => !BLOCKED_FOR_CHILDREN.includes(n) || (orchestrator && n === "delegate_task"));
      const started = ctx.clock.now();
      const results = await Promise.all(tasks.map((task, i) => runChild(o, ctx, signal, { task, label: String(i + 1), depth, orchestrator, allowedTools })));
      return JSON.stringify({
        results: results.map((r, i) => ({ task_index: i, ...r })),
        total_duration_seconds: round((ctx.clock.now() - started) / 1000),
      });
    },
  });
}

interface ChildSpec {
  readonly task: DelegateTask;
  readonly label: string;
  readonly depth: number;
  readonly orchestrator: boolean;
  readonly allowedTools: readonly string[];
}

async function runChild(o: DelegateToolOptions, ctx: ToolContext, signal: AbortSignal, c: ChildSpec): Promise<Record<string, unknown>> {
  const run = ctx.agent!;
  const progress = (p: SubagentProgress) => {
    try {
      run.progress(p);
    } catch {
      // Progress is for display: a failing listener must never cost the child its work.
    }
  };
  const system = childSystemPrompt({
    goal: c.task.goal,
    context: c.task.context ?? "",
    workspace: ctx.cwd,
    ...(c.orchestrator ? { orchestrator: { depth: c.depth, maxDepth: o.config.max_spawn_depth } } : {}),
  });
  const started = ctx.clock.now();
  progress({ label: c.label, kind: "started", preview: c.task.goal });
  const r: SubagentResult = await o.runner.run(
    {
      label: c.label,
      system,
      task: c.task.goal,
      toolsets: c.task.toolsets ?? run.toolsets,
      allowedTools: c.allowedTools,
      budget: run.budget.child(o.config.max_iterations),
      depth: c.depth,
      progress,
    },
    ctx,
    signal,
  );
  progress({ label: c.label, kind: "finished", preview: r.status });
  return {
    status: r.status,
    summary: r.summary || (r.status === "completed" ? "(the subagent finished without a summary)" : ""),
    ...(r.error ? { error: r.error } : {}),
    session_id: r.sessionId,
    api_calls: r.apiCalls,
    tool_calls: r.toolCalls,
    duration_seconds: round((ctx.clock.now() - started) / 1000),
  };
}

const round = (s: number) => Math.round(s * 100) / 100;
